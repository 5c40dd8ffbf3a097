//! The dependency graph of a workflow's tasks, as the Python tool walks it with Python's
//! `graphlib.TopologicalSorter`: the cycle it names, and the order tasks run in.

use std::collections::{BTreeSet, HashMap};

/// The tasks as `(id, ids it depends on)`, in file order.
pub(super) type Graph<'a> = [(&'a str, &'a [String])];

/// The cycle `graphlib` reports for this graph (`['a', 'b', 'a']`), or `None`.
///
/// It is `graphlib`'s search, step for step, so the cycle is named from the same task: nodes
/// are visited in the order they were added (each task, then the dependencies it names that
/// were not seen yet), and edges go from a dependency to its dependants in the order they were
/// added.
pub(super) fn find_cycle(graph: &Graph<'_>) -> Option<Vec<String>> {
    let mut names: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut successors: Vec<Vec<usize>> = Vec::new();
    for (node, dependencies) in graph {
        let node_index = *index.entry(node).or_insert_with(|| {
            names.push(node);
            successors.push(Vec::new());
            names.len() - 1
        });
        for dependency in dependencies.iter() {
            let dependency_index = *index.entry(dependency.as_str()).or_insert_with(|| {
                names.push(dependency.as_str());
                successors.push(Vec::new());
                names.len() - 1
            });
            successors[dependency_index].push(node_index);
        }
    }
    let mut seen = vec![false; names.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    let mut on_stack: HashMap<usize, usize> = HashMap::new();
    for first in 0..names.len() {
        if seen[first] {
            continue;
        }
        let mut node = first;
        loop {
            if seen[node] {
                if let Some(&at) = on_stack.get(&node) {
                    let mut cycle: Vec<String> =
                        stack[at..].iter().map(|&n| names[n].to_owned()).collect();
                    cycle.push(names[node].to_owned());
                    return Some(cycle);
                }
            } else {
                seen[node] = true;
                positions.push(0);
                on_stack.insert(node, stack.len());
                stack.push(node);
            }
            let mut next = None;
            while let (Some(&top), Some(position)) = (stack.last(), positions.last_mut()) {
                if let Some(&successor) = successors[top].get(*position) {
                    *position += 1;
                    next = Some(successor);
                    break;
                }
                on_stack.remove(&top);
                stack.pop();
                positions.pop();
            }
            match next {
                Some(successor) => node = successor,
                None => break,
            }
        }
    }
    None
}

/// The positions of the tasks in the order they run: in rounds, each round every task whose
/// dependencies ran in earlier rounds, in file order (the Python tool's `get_ready()` batches,
/// each sorted by file position). Tasks in a cycle, or that depend on an unknown id, are left
/// out (a valid workflow has neither).
pub(super) fn order(graph: &Graph<'_>) -> Vec<usize> {
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut ordered: Vec<usize> = Vec::new();
    loop {
        let ready: Vec<usize> = graph
            .iter()
            .enumerate()
            .filter(|(_, (id, dependencies))| {
                !done.contains(id)
                    && dependencies
                        .iter()
                        .all(|dependency| done.contains(dependency.as_str()))
            })
            .map(|(position, _)| position)
            .collect();
        if ready.is_empty() {
            return ordered;
        }
        for &position in &ready {
            done.insert(graph[position].0);
        }
        ordered.extend(ready);
    }
}

/// The ids a task depends on, directly or through others.
pub(super) fn ancestors(graph: &Graph<'_>, id: &str) -> BTreeSet<String> {
    let dependencies_of = |id: &str| {
        graph
            .iter()
            .find(|(node, _)| *node == id)
            .map_or(&[][..], |(_, dependencies)| *dependencies)
    };
    let mut found = BTreeSet::new();
    let mut pending: Vec<&str> = dependencies_of(id).iter().map(String::as_str).collect();
    while let Some(current) = pending.pop() {
        if found.insert(current.to_owned()) {
            pending.extend(dependencies_of(current).iter().map(String::as_str));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&'static str, &[&str])]) -> Vec<(&'static str, Vec<String>)> {
        edges
            .iter()
            .map(|(id, deps)| (*id, deps.iter().map(|d| d.to_string()).collect()))
            .collect()
    }

    fn view<'a>(owned: &'a [(&'static str, Vec<String>)]) -> Vec<(&'a str, &'a [String])> {
        owned
            .iter()
            .map(|(id, deps)| (*id, deps.as_slice()))
            .collect()
    }

    #[test]
    fn cycles_are_named_as_graphlib_names_them() {
        let two = graph(&[("a", &["b"]), ("b", &["a"])]);
        assert_eq!(find_cycle(&view(&two)).unwrap(), ["a", "b", "a"]);
        let three = graph(&[("x", &[]), ("a", &["c"]), ("b", &["a"]), ("c", &["b"])]);
        assert_eq!(find_cycle(&view(&three)).unwrap(), ["a", "b", "c", "a"]);
        let later = graph(&[("c", &["b"]), ("b", &["a"]), ("a", &["b"])]);
        assert_eq!(find_cycle(&view(&later)).unwrap(), ["b", "a", "b"]);
        let fine = graph(&[("a", &[]), ("b", &["a"]), ("c", &["a", "b"])]);
        assert_eq!(find_cycle(&view(&fine)), None);
    }

    #[test]
    fn order_runs_in_rounds_in_file_order() {
        let tasks = graph(&[("a", &[]), ("b", &["a"]), ("c", &[]), ("d", &["b", "c"])]);
        assert_eq!(order(&view(&tasks)), [0, 2, 1, 3]);
        let reversed = graph(&[("late", &["early"]), ("early", &[])]);
        assert_eq!(order(&view(&reversed)), [1, 0]);
        assert_eq!(
            ancestors(&view(&tasks), "d")
                .into_iter()
                .collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert!(ancestors(&view(&tasks), "a").is_empty());
    }
}
