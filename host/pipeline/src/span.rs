//! Spans across threads: a run reads, transforms and checks on threads of its own, which do not
//! inherit the span current where they start; the plugins they open belong to the run's span.

/// `f`, run inside the span that is current where it is made.
pub(crate) fn in_current_span<T>(f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let span = tracing::Span::current();
    move || span.in_scope(f)
}
