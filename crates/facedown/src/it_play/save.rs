//! Saving and resuming: `table::Saved<IronTriangle>` as pretty JSON, written atomically, and
//! checked against the rules when loaded.

use std::path::Path;

use anyhow::{Context, bail};
use iron_triangle::{Conflict, IronTriangle};
use table::{Saved, Table};

/// Writes the table's save to `path` atomically (see [`crate::save_file`]: a crash never
/// leaves half a file, the file is the owner's only, a stale temporary file never blocks).
pub fn write(table: &Table<IronTriangle>, path: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(&table.save()).context("cannot encode the save")?;
    crate::save_file::write_atomic(path, &(json + "\n"))
}

/// Reads a save and checks it: its initial state must be a conflict as [`Conflict::new`]
/// builds it, and every event must follow from the rules (an automatic step, or what a legal
/// command of some seat causes). A corrupt or hand-edited save is refused with a message.
pub fn read(path: &Path) -> anyhow::Result<Table<IronTriangle>> {
    let name = path.display();
    let text = crate::input::read_bounded(path, crate::input::SAVE_LIMIT)
        .with_context(|| format!("cannot read the save {name}"))?;
    let saved: Saved<IronTriangle> = serde_json::from_str(&text)
        .with_context(|| format!("{name} is not a facedown Iron Triangle save"))?;
    check_initial(&saved.initial).with_context(|| format!("{name}: corrupt save"))?;
    Table::load_checked(saved).with_context(|| format!("{name}: corrupt save"))
}

fn check_initial(initial: &Conflict) -> anyhow::Result<()> {
    if initial.fighters.iter().any(|f| initial.seats.get(f.seat).is_err()) {
        bail!("a character sits at a seat that does not exist");
    }
    let setup = initial.setup();
    let fresh = Conflict::new(setup).context("its conflict cannot start")?;
    if fresh != *initial {
        bail!("its initial state is not the start of a conflict");
    }
    Ok(())
}
