//! Times in logs: recognising how a column writes them (`layout`, from a sample of values) and
//! reading a whole column with the layout found (`parse`, into UTC milliseconds).

pub mod layout;
pub mod parse;
