//! The page's files, embedded in the binary: the page works offline and needs nothing on disk.

/// The file at `path`, with its content type.
pub(crate) fn get(path: &str) -> Option<(&'static str, &'static [u8])> {
    Some(match path {
        "/" | "/index.html" => (
            "text/html; charset=utf-8",
            include_bytes!("../assets/index.html"),
        ),
        "/app.js" => (
            "text/javascript; charset=utf-8",
            include_bytes!("../assets/app.js"),
        ),
        "/style.css" => (
            "text/css; charset=utf-8",
            include_bytes!("../assets/style.css"),
        ),
        "/favicon.svg" => ("image/svg+xml", include_bytes!("../assets/favicon.svg")),
        _ => return None,
    })
}
