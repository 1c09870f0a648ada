//! Prints the sizes of the types the simulation hot path copies (events, commands, the
//! conflict state), to keep an eye on them: `cargo run --release -p iron-triangle --example sizes`.

fn main() {
    use iron_triangle::*;
    println!("Event {}", std::mem::size_of::<rules::Event>());
    println!("Command {}", std::mem::size_of::<rules::Command>());
    println!("Conflict {}", std::mem::size_of::<Conflict>());
    println!("Fighter {}", std::mem::size_of::<conflict::Fighter>());
    println!("Phase {}", std::mem::size_of::<conflict::Phase>());
    println!("TurnResult {}", std::mem::size_of::<turn::TurnResult>());
}
