//! Several games in one campaign database (issue 14, part 4): the `store` crate's games tables
//! (migrations from 1001) live in the campaign's file next to the campaign's own (1, 2, …);
//! each side's migrator accepts the other's, and the campaign's schema version stays its own.

use campaign::Store;
use store::{Entry, Mark, NewGame, Persist, SqliteGames};
use table::SeatId;

#[test]
fn campaign_database_holds_several_games_and_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("campaign.sqlite");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let campaign = Store::open(&path).await.unwrap();
        campaign.create_countdown("The storm", 4).await.unwrap();
        campaign.close().await;

        let games = SqliteGames::open(&path).await.unwrap();
        let setup = NewGame {
            ruleset: "iron-triangle".into(),
            ruleset_version: "0.1.0".into(),
            setup: "{}".into(),
            seeds: vec![1],
        };
        let a = games.create_game(&setup).await.unwrap();
        let b = games.create_game(&setup).await.unwrap();
        for seq in 0..3 {
            let e = Entry { seq, seat: SeatId(0), command: "{}".into(), mark: Mark::Played };
            games.append(a, &e).await.unwrap();
            games.append(b, &e).await.unwrap();
        }
        games.close().await;

        // The campaign opens again, with its own schema version and its data.
        let campaign = Store::open(&path).await.unwrap();
        assert_eq!(campaign.schema_version().await.unwrap(), 2);
        assert_eq!(campaign.countdowns().await.unwrap().len(), 1);
        campaign.create_countdown("The flood", 5).await.unwrap();
        campaign.close().await;
        let games = SqliteGames::open(&path).await.unwrap();
        assert_eq!(games.games().await.unwrap().len(), 2);
        assert_eq!(games.entries(b).await.unwrap().len(), 3);
    });
}
