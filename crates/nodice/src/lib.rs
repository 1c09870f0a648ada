//! No Dice Trine conflicts (seed 002; rules reference `shared/rules/nodice.md`): a pure rule
//! system on the `table` core. Work in progress (issue 5).
