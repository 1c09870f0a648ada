//! Saving and resuming: `table::Saved<IronTriangle>` as pretty JSON, written atomically, and
//! checked against the rules when loaded.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use iron_triangle::{Conflict, IronTriangle};
use table::{Saved, Table};

/// Writes the table's save to `path` (through `path.tmp` and a rename, so a crash never
/// leaves half a file).
pub fn write(table: &Table<IronTriangle>, path: &Path) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(&table.save()).context("cannot encode the save")?;
    let mut tmp = PathBuf::from(path);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    tmp.set_file_name(name);
    std::fs::write(&tmp, json + "\n").with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// Reads a save and checks it: its initial state must be a conflict as [`Conflict::new`]
/// builds it, and every event must follow from the rules (an automatic step, or what a legal
/// command of some seat causes). A corrupt or hand-edited save is refused with a message.
pub fn read(path: &Path) -> anyhow::Result<Table<IronTriangle>> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read the save {name}"))?;
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
