//! What `Store::open` refuses and how a read-only campaign behaves (issue 13, §4): `:memory:`
//! keeps nothing, another program's database is left untouched, a read-only campaign answers
//! every read and refuses every change with a clear error.

use campaign::{Store, StoreError};
use iron_triangle::{Character, Energy};

async fn tables(path: &std::path::Path) -> Vec<String> {
    use sqlx::Connection as _;
    let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    let mut c = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .fetch_all(&mut c)
            .await
            .unwrap();
    rows.into_iter().map(|(n,)| n).collect()
}

#[test]
fn campaign_database_in_memory_is_refused() {
    rt().block_on(async {
        for p in [":memory:", "", "file::memory:?cache=shared"] {
            match Store::open(std::path::Path::new(p)).await {
                Err(StoreError::NotACampaign(m)) => assert!(m.contains("memory") || p.is_empty(), "{m}"),
                Err(e) => panic!("{p:?}: {e}"),
                Ok(_) => panic!("{p:?} was opened as a campaign"),
            }
        }
    })
}

#[test]
fn campaign_database_of_another_program_is_refused_before_any_table_is_added() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.sqlite");
        {
            use sqlx::Connection as _;
            let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&path).create_if_missing(true);
            let mut c = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
            sqlx::query("CREATE TABLE notes (x TEXT)").execute(&mut c).await.unwrap();
            c.close().await.unwrap();
        }
        match Store::open(&path).await {
            Err(StoreError::NotACampaign(m)) => assert!(m.contains("not a facedown campaign"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("another program's database was opened as a campaign"),
        }
        assert_eq!(tables(&path).await, ["notes"]);
    })
}

#[test]
fn campaign_database_that_is_not_sqlite_is_refused_and_left_unchanged() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("letter.txt");
        std::fs::write(&path, "Dear diary, this is not a database.\n".repeat(200)).unwrap();
        let before = std::fs::read(&path).unwrap();
        match Store::open(&path).await {
            Err(StoreError::NotACampaign(m)) => assert!(m.contains("not a SQLite database"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a text file was opened as a campaign"),
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
    })
}

#[test]
fn campaign_database_read_only_answers_reads_and_refuses_writes() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("campaign.sqlite");
        {
            let s = Store::open(&path).await.unwrap();
            s.add_npc(&Character::with_starting_moves("Ninja", Energy::new(3, 3, 4))).await.unwrap();
            // Closing folds the write-ahead log back into the file.
            s.close().await;
        }
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&path, perms).unwrap();

        let s = Store::open(&path).await.unwrap();
        assert!(s.is_read_only());
        assert_eq!(s.npcs().await.unwrap().len(), 1);
        assert!(s.pcs().await.unwrap().is_empty());
        assert!(s.log(None).await.is_ok());
        match s.add_npc(&Character::with_starting_moves("Bandit", Energy::new(3, 3, 4))).await {
            Err(StoreError::ReadOnly(m)) => assert!(m.contains("read-only"), "{m}"),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a read-only campaign was changed"),
        }
        s.close().await;
        drop(s);
        // Reading left no read-only journal files that would block writing later.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["campaign.sqlite"]);
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        perms.set_readonly(false);
        std::fs::set_permissions(&path, perms).unwrap();
        let s = Store::open(&path).await.unwrap();
        s.add_npc(&Character::with_starting_moves("Bandit", Energy::new(3, 3, 4))).await.unwrap();
        assert_eq!(s.npcs().await.unwrap().len(), 2);
    })
}

/// A runtime for one test: the store owns none, its caller brings one.
fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}
