//! The time limit, enforced inside execution: after physical planning every node of the plan is
//! wrapped in a [`DeadlineExec`], whose stream checks the query's [`Deadline`] each time it is
//! polled and, once it has passed, gives an error instead of polling its input. An operator
//! pulling from its children (an aggregate over a cross join) then stops at its next batch.
//!
//! `tokio::time::timeout` around the query cannot do this: an operator whose poll loops
//! without ever returning `Pending` keeps its thread (and its core) and never lets the timer
//! fire. DataFusion's own cooperative scheduling (`CooperativeExec`, added by the
//! `EnsureCooperative` rule) only spends the task's budget at scans and exchanges, so a join
//! producing batch after batch from data it already holds never yields; and yielding alone
//! would not stop the work still running in spawned tasks either.

use std::any::Any;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{RecordBatchStream, SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties, Statistics,
};
use futures_util::{Stream, StreamExt};

/// When a query must stop, shared by every node of its plan.
#[derive(Debug)]
pub(crate) struct Deadline {
    at: Instant,
    limit: Duration,
    passed: AtomicBool,
}

impl Deadline {
    /// A deadline `limit` from now.
    pub(crate) fn after(limit: Duration) -> Arc<Deadline> {
        Arc::new(Deadline {
            at: Instant::now() + limit,
            limit,
            passed: AtomicBool::new(false),
        })
    }

    /// The time limit.
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }

    /// Whether the deadline passed while the query ran (noted by the first node that saw it).
    pub(crate) fn was_passed(&self) -> bool {
        self.passed.load(Ordering::Relaxed)
    }

    /// The error every node gives once the deadline has passed; `None` before.
    pub(crate) fn check(&self) -> Option<DataFusionError> {
        if self.passed.load(Ordering::Relaxed) || Instant::now() >= self.at {
            self.passed.store(true, Ordering::Relaxed);
            Some(DataFusionError::Execution(format!(
                "the query ran longer than the time limit of {} s",
                self.limit.as_secs_f64()
            )))
        } else {
            None
        }
    }
}

/// `plan` with every node wrapped in a [`DeadlineExec`] checking `deadline`.
pub(crate) fn with_deadline(
    plan: Arc<dyn ExecutionPlan>,
    deadline: &Arc<Deadline>,
) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        let wrapped: Arc<dyn ExecutionPlan> = Arc::new(DeadlineExec::new(node, deadline));
        Ok(Transformed::yes(wrapped))
    })
    .map(|transformed| transformed.data)
}

/// A pass-through node: its input's batches, or the deadline's error once it has passed.
#[derive(Debug)]
pub(crate) struct DeadlineExec {
    input: Arc<dyn ExecutionPlan>,
    deadline: Arc<Deadline>,
}

impl DeadlineExec {
    fn new(input: Arc<dyn ExecutionPlan>, deadline: &Arc<Deadline>) -> DeadlineExec {
        DeadlineExec {
            input,
            deadline: Arc::clone(deadline),
        }
    }
}

impl DisplayAs for DeadlineExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeadlineExec: limit={:?}", self.deadline.limit)
    }
}

impl ExecutionPlan for DeadlineExec {
    fn name(&self) -> &str {
        "DeadlineExec"
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn maintains_input_order(&self) -> Vec<bool> {
        vec![true]
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match (children.pop(), children.is_empty()) {
            (Some(input), true) => Ok(Arc::new(DeadlineExec::new(input, &self.deadline))),
            _ => Err(DataFusionError::Internal(
                "DeadlineExec takes exactly one child".into(),
            )),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if let Some(error) = self.deadline.check() {
            return Err(error);
        }
        Ok(Box::pin(DeadlineStream {
            input: self.input.execute(partition, context)?,
            deadline: Arc::clone(&self.deadline),
        }))
    }

    fn partition_statistics(&self, partition: Option<usize>) -> Result<Statistics> {
        self.input.partition_statistics(partition)
    }
}

/// The stream of a [`DeadlineExec`].
struct DeadlineStream {
    input: SendableRecordBatchStream,
    deadline: Arc<Deadline>,
}

impl Stream for DeadlineStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(error) = self.deadline.check() {
            return Poll::Ready(Some(Err(error)));
        }
        self.input.poll_next_unpin(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.input.size_hint()
    }
}

impl RecordBatchStream for DeadlineStream {
    fn schema(&self) -> SchemaRef {
        self.input.schema()
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::{ArrayRef, Int64Array};
    use datafusion::execution::context::SessionContext;
    use datafusion::physical_plan::collect;

    use super::*;

    async fn plan(context: &SessionContext, sql: &str) -> Arc<dyn ExecutionPlan> {
        let x: ArrayRef = Arc::new(Int64Array::from((0..100).collect::<Vec<_>>()));
        context
            .register_batch("t", RecordBatch::try_from_iter([("x", x)]).unwrap())
            .unwrap();
        let frame = context.sql(sql).await.unwrap();
        frame.create_physical_plan().await.unwrap()
    }

    /// Every node of the plan gets a deadline above it, so any operator pulling from a child
    /// meets it.
    #[test]
    fn every_node_is_wrapped_and_a_passed_deadline_stops_the_query() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let context = SessionContext::new();
            let sql = "SELECT a.x, count(*) FROM t a, t b WHERE a.x < 5 GROUP BY a.x";
            let plain = plan(&context, sql).await;
            let deadline = Deadline::after(Duration::from_secs(3600));
            let wrapped = with_deadline(Arc::clone(&plain), &deadline).unwrap();
            let count = |plan: &Arc<dyn ExecutionPlan>| {
                let mut stack = vec![Arc::clone(plan)];
                let (mut nodes, mut deadlines) = (0, 0);
                while let Some(node) = stack.pop() {
                    nodes += 1;
                    deadlines += usize::from(node.as_any().is::<DeadlineExec>());
                    stack.extend(node.children().into_iter().cloned());
                }
                (nodes, deadlines)
            };
            let (nodes, _) = count(&plain);
            assert_eq!(count(&wrapped), (2 * nodes, nodes));
            // Within the deadline: the same rows.
            let rows =
                |batches: Vec<RecordBatch>| batches.iter().map(|b| b.num_rows()).sum::<usize>();
            assert_eq!(rows(collect(wrapped, context.task_ctx()).await.unwrap()), 5);
            assert!(!deadline.was_passed());
            // Past it: the deadline's error, noted.
            let passed = Deadline::after(Duration::ZERO);
            let wrapped = with_deadline(plain, &passed).unwrap();
            let error = collect(wrapped, context.task_ctx()).await.unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("the query ran longer than the time limit of 0 s"),
                "{error}"
            );
            assert!(passed.was_passed());
        });
    }
}
