//! The store inside a server (issue 14, part 4): it owns no runtime and never calls `block_on`,
//! so it works from tasks of a running multi-thread tokio runtime. Before, `Store::open`
//! built its own runtime and blocked on it, which panics inside a runtime ("Cannot start a
//! runtime from within a runtime").

use campaign::Store;
use iron_triangle::campaign::{Background, Sheet};
use iron_triangle::{Character, Energy};

fn pc(name: &str) -> Sheet {
    Sheet {
        character: Character::with_starting_moves(name, Energy::new(3, 2, 5)),
        backgrounds: vec![Background { name: "cop".into(), points: 2, left: None }],
        ..Sheet::default()
    }
}

/// The futures a server spawns must be `Send`.
fn spawnable<F: std::future::Future + Send + 'static>(f: F) -> F {
    f
}

#[test]
fn campaign_store_works_from_inside_a_multi_thread_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("campaign.sqlite");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async move {
        let store = Store::open(&path).await.unwrap();
        store.create_pc(&pc("Ada")).await.unwrap();
        // Several tasks on the server's worker threads share one store.
        let tasks: Vec<_> = (0..4)
            .map(|i| {
                let s = store.clone();
                tokio::spawn(spawnable(async move {
                    s.create_countdown(&format!("clock {i}"), 4).await.unwrap();
                    s.mark_countdown(&format!("clock {i}")).await.unwrap();
                    s.pcs().await.unwrap().len()
                }))
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.unwrap(), 1);
        }
        let all = store.countdowns().await.unwrap();
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|c| c.marked == 1));
        store.close().await;
        // Reopened by another task: everything is there.
        let again =
            tokio::spawn(async move { Store::open(&path).await.unwrap().countdowns().await.unwrap().len() });
        assert_eq!(again.await.unwrap(), 4);
    });
}
