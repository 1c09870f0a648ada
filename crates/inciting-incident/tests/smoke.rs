mod common;

use inciting_incident::{IncitingIncident, Scene};
use table::Table;

#[test]
fn example_scenes_play_to_the_end() {
    for seed in 0..50 {
        let mut t = Table::<IncitingIncident>::new(common::fight());
        common::play_random(&mut t, seed, 10_000);
        assert!(t.is_over(), "seed {seed}: {}", t.state().waiting_for());
        let s = Scene::new(common::example("cover-up.toml")).unwrap();
        let mut t = Table::<IncitingIncident>::new(s);
        common::play_random(&mut t, seed, 10_000);
        assert!(t.is_over());
    }
}
