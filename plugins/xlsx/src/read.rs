//! Opening the workbook, choosing the sheet and reading its cells.
//!
//! The cells are read with calamine's cell reader, one at a time in file order, and kept sparse:
//! only cells that hold a value, column by column. Memory follows the cells the sheet holds, not
//! the rectangle they span (one stray cell at `XFD1048576` costs one cell). The merged ranges are
//! read first, and every cell of a merged range but its first is emptied, whatever a writer left
//! in it (Excel keeps only the first; LibreOffice may keep the others, hidden). calamine reads
//! the merged ranges in a pass of their own over the sheet's XML: on a sheet of 1.6 million cells
//! that pass adds about half to the time of the read (7 s instead of 5 s, in the sandbox).

use crate::cell::Value;
use crate::config::{Config, SheetChoice};
use calamine::{Dimensions, Reader, SheetType, Xlsx, XlsxError};
use ldp_plugin_sdk::PluginError;
use ldp_pyrepr::{repr_list, repr_str};
use std::fs::File;
use std::io::BufReader;

/// The workbook formats an XLSX source reads (as openpyxl does), by file name extension.
pub const EXTENSIONS: &[&str] = &[".xlsx", ".xlsm", ".xltx", ".xltm"];

/// The columns a worksheet has (`A` to `XFD`).
pub const MAX_COLUMNS: u32 = 16_384;

/// The cells of one sheet from the header row down.
#[derive(Debug, Default)]
pub struct SheetCells {
    /// `"/path/book.xlsx (sheet 'Sales')"`: how messages name the sheet.
    pub place: String,
    /// The header row, 0-based.
    pub header_row: u32,
    /// The header row's cells, by column (`None`: empty).
    pub header: Vec<Option<Value>>,
    /// The cells below the header row that hold a value, by column, as (0-based row, value),
    /// sorted by row.
    pub columns: Vec<Vec<(u32, Value)>>,
    /// Whether the sheet has any cell at or below the header row, even an empty one.
    pub has_rows: bool,
}

/// Opens the workbook the config names and reads the cells of its sheet.
pub fn read_sheet(config: &Config) -> Result<SheetCells, PluginError> {
    let path = config.path.as_str();
    let mut workbook = open(path, &config.sheet)?;
    let (name, place) = choose(&workbook, path, &config.sheet)?;
    let unreadable = |e: XlsxError| match e {
        XlsxError::Io(e) => PluginError::io(format!("{place}: cannot read the file: {e}")),
        // calamine refuses a cell typed as a number whose stored text is not one (` 41`, with
        // a leading space, as some writers store it) and does not say which cell.
        e @ XlsxError::ParseFloat(_) => PluginError::data(format!(
            "{place}: the sheet cannot be read: {e}: a cell typed as a number holds text that \
             is not one (such as a leading space); open the workbook in Excel or LibreOffice and \
             save it again, which rewrites such cells"
        )),
        e => PluginError::data(format!("{place}: the sheet cannot be read: {e}")),
    };
    let merges = workbook
        .merge_cells_by_sheet_name(&name)
        .map_err(unreadable)?;
    let is_1904 = workbook.has_1904_epoch();
    let header_row = u32::try_from(config.header_row - 1).unwrap_or(u32::MAX);
    let mut sheet = SheetCells {
        header_row,
        ..SheetCells::default()
    };
    let mut cells = workbook.worksheet_cells_reader(&name).map_err(unreadable)?;
    while let Some(cell) = cells.next_cell().map_err(unreadable)? {
        let (row, col) = cell.get_position();
        if row < header_row {
            continue;
        }
        sheet.has_rows = true;
        if col >= MAX_COLUMNS {
            return Err(PluginError::data(format!(
                "{place}: the sheet has a cell in column {}, beyond XFD, the last column of a worksheet",
                col + 1
            )));
        }
        let value = Value::from_cell(cell.get_value(), is_1904).map_err(|why| {
            PluginError::data(format!(
                "{place}: the sheet cannot be read: cell {}: {why}",
                cell_name(row, col)
            ))
        })?;
        let Some(value) = value else { continue };
        let col = col as usize;
        if row == header_row {
            if sheet.header.len() <= col {
                sheet.header.resize(col + 1, None);
            }
            sheet.header[col] = Some(value);
        } else {
            if sheet.columns.len() <= col {
                sheet.columns.resize_with(col + 1, Vec::new);
            }
            let column = &mut sheet.columns[col];
            match column.last_mut() {
                // The same cell twice: the last one counts.
                Some(last) if last.0 == row => last.1 = value,
                _ => column.push((row, value)),
            }
        }
    }
    drop(cells);
    for column in &mut sheet.columns {
        if !column.is_sorted_by_key(|(row, _)| *row) {
            column.sort_by_key(|(row, _)| *row);
            // The same cell twice: the last one counts, as above.
            column.dedup_by(|later, earlier| {
                let same = later.0 == earlier.0;
                if same {
                    std::mem::swap(&mut later.1, &mut earlier.1);
                }
                same
            });
        }
    }
    empty_merged_cells(&mut sheet, &merges);
    sheet.place = place;
    Ok(sheet)
}

/// Opens the workbook: the file must exist, be an .xlsx (not an old .xls) and be a readable one.
fn open(path: &str, sheet: &SheetChoice) -> Result<Xlsx<BufReader<File>>, PluginError> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Err(PluginError::io(format!("Excel file not found: {path}")));
    }
    let extension = match path.rfind('.') {
        Some(dot) if !path[dot..].contains('/') => path[dot..].to_lowercase(),
        _ => String::new(),
    };
    if extension == ".xls" {
        let which = match sheet {
            SheetChoice::First => "its first sheet".to_owned(),
            SheetChoice::Name(name) => format!("sheet {}", repr_str(name)),
            SheetChoice::Index(index) => format!("the sheet at position {index}"),
        };
        return Err(PluginError::config(format!(
            "{path} is an old .xls workbook, which is not supported, so {which} cannot be read. \
             Open it in Excel and save it as .xlsx"
        )));
    }
    if !EXTENSIONS.contains(&extension.as_str()) {
        let named = if extension.is_empty() {
            "has no extension".to_owned()
        } else {
            format!("is a {extension} file")
        };
        return Err(PluginError::config(format!(
            "{path} cannot be read: it {named}, and an XLSX source reads {} workbooks",
            EXTENSIONS.join(", ")
        )));
    }
    let file = File::open(path)
        .map_err(|e| PluginError::io(format!("{path}: cannot open the file: {e}")))?;
    Xlsx::new(BufReader::new(file)).map_err(|e| match e {
        XlsxError::Io(e) => PluginError::io(format!("{path}: cannot read the file: {e}")),
        XlsxError::Zip(_) => PluginError::data(format!(
            "{path} is not a readable .xlsx workbook. A file that is password protected, or that \
             has another format and an .xlsx name, cannot be read"
        )),
        e => PluginError::data(format!("{path} is not a readable .xlsx workbook: {e}")),
    })
}

/// The worksheet to read, and how messages name it: by position, by name (Excel ignores case
/// in names), or the first. Chart sheets are not worksheets.
fn choose(
    workbook: &Xlsx<BufReader<File>>,
    path: &str,
    sheet: &SheetChoice,
) -> Result<(String, String), PluginError> {
    let names: Vec<&str> = workbook
        .sheets_metadata()
        .iter()
        .filter(|s| s.typ == SheetType::WorkSheet)
        .map(|s| s.name.as_str())
        .collect();
    let name = match sheet {
        _ if names.is_empty() => {
            return Err(PluginError::data(format!("{path} has no worksheets")));
        }
        SheetChoice::First => names[0],
        SheetChoice::Index(index) => *usize::try_from(*index)
            .ok()
            .and_then(|i| names.get(i))
            .ok_or_else(|| {
                PluginError::config(format!(
                    "{path}: there is no sheet at position {index}; the workbook has {}: {}",
                    names.len(),
                    repr_list(&names)
                ))
            })?,
        SheetChoice::Name(wanted) => {
            let folded = crate::cell::casefold(wanted.trim());
            *names
                .iter()
                .find(|n| *n == wanted || crate::cell::casefold(n) == folded)
                .ok_or_else(|| {
                    PluginError::config(format!(
                        "{path}: there is no sheet named {}; the sheets are {}",
                        repr_str(wanted),
                        repr_list(&names)
                    ))
                })?
        }
    };
    Ok((
        name.to_owned(),
        format!("{path} (sheet {})", repr_str(name)),
    ))
}

/// Empties every cell of a merged range but its first (top left) one.
fn empty_merged_cells(sheet: &mut SheetCells, merges: &[Dimensions]) {
    let width = sheet.columns.len().max(sheet.header.len());
    for merge in merges {
        let (top, left) = merge.start;
        let (bottom, right) = merge.end;
        if bottom < sheet.header_row {
            continue;
        }
        let last = (right as usize).min(width.saturating_sub(1));
        for col in left as usize..=last {
            let anchor_col = col == left as usize;
            if (top..=bottom).contains(&sheet.header_row)
                && !(anchor_col && top == sheet.header_row)
                && let Some(cell) = sheet.header.get_mut(col)
            {
                *cell = None;
            }
            let Some(cells) = sheet.columns.get_mut(col) else {
                continue;
            };
            let mut from = cells.partition_point(|(row, _)| *row < top);
            let to = cells.partition_point(|(row, _)| *row <= bottom);
            if anchor_col && from < to && cells[from].0 == top {
                from += 1;
            }
            if from < to {
                cells.drain(from..to);
            }
        }
    }
}

/// `B7` for the 0-based row 6 and column 1.
pub fn cell_name(row: u32, col: u32) -> String {
    format!("{}{}", column_letters(col), u64::from(row) + 1)
}

/// `A`, `Z`, `AA`, ... for the 0-based column.
pub fn column_letters(col: u32) -> String {
    let mut n = u64::from(col) + 1;
    let mut letters = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        letters.push(char::from(b'A' + rem));
        n = (n - 1) / 26;
    }
    letters.iter().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_names() {
        assert_eq!(cell_name(0, 0), "A1");
        assert_eq!(cell_name(6, 25), "Z7");
        assert_eq!(column_letters(26), "AA");
        assert_eq!(column_letters(MAX_COLUMNS - 1), "XFD");
    }

    #[test]
    fn merged_cells_are_emptied_but_the_first() {
        let text = |s: &str| Value::Text(s.into());
        let mut sheet = SheetCells {
            header_row: 0,
            header: vec![Some(text("a")), Some(text("b")), Some(text("c"))],
            columns: vec![
                vec![(1, text("x")), (2, text("y")), (3, text("z"))],
                vec![(1, text("hidden")), (2, text("kept"))],
            ],
            ..SheetCells::default()
        };
        // A2:B3 and a whole-row merge of the header from B1.
        let merges = [
            Dimensions::new((1, 0), (2, 1)),
            Dimensions::new((0, 1), (0, 16_383)),
        ];
        empty_merged_cells(&mut sheet, &merges);
        assert_eq!(sheet.header, vec![Some(text("a")), Some(text("b")), None]);
        assert_eq!(sheet.columns[0], vec![(1, text("x")), (3, text("z"))]);
        assert!(sheet.columns[1].is_empty());
    }
}
