//! Event and run ids: RFC 9562 UUIDv7 texts, ordered by creation within the process.

/// A new UUIDv7 as its canonical 36-character text, e.g.
/// `01a23725-703f-70a2-bcb1-b5e58fd5a77a`. Ids made by one process sort in creation order.
pub fn uuid7() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_v7_and_ordered() {
        let first = super::uuid7();
        let second = super::uuid7();
        assert_eq!(first.len(), 36);
        assert_eq!(&first[14..15], "7");
        assert!(first < second);
    }
}
