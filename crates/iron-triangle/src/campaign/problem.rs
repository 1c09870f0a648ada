//! Problems (rules reference §7): the interested players choose an option at the same time,
//! face down; the highest number wins and its player narrates.
//!
//! The flow is a small state machine: [`Problem::choose`] for each player (hidden until
//! [`Problem::reveal`]), then a narrator ([`Stage::Narrating`]); if the narrator cannot
//! narrate within the rules, [`Problem::cannot_narrate`] passes to the next-highest choice;
//! another player may [`Problem::veto`]; [`Problem::settle`] ends it and says what each
//! character pays ([`Cost`], applied with [`pay`]).

use serde::{Deserialize, Serialize};

use crate::campaign::CampaignError;
use crate::campaign::sheet::Sheet;

/// The four options of §7, numbered as in the book; higher beats lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemOption {
    /// 1. Succeed with a good idea.
    GoodIdea = 1,
    /// 2. Succeed by spending a background point (needs one left).
    Background = 2,
    /// 3. Succeed with a significant complication (marks the belief, or the flaw).
    Complication = 3,
    /// 4. Fail in an interesting way (marks the flaw, or the belief).
    Failure = 4,
}

impl ProblemOption {
    /// The option numbered 1–4.
    pub fn from_number(n: u32) -> Option<ProblemOption> {
        Some(match n {
            1 => ProblemOption::GoodIdea,
            2 => ProblemOption::Background,
            3 => ProblemOption::Complication,
            4 => ProblemOption::Failure,
            _ => return None,
        })
    }

    /// Its number, 1–4.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The book's words for it.
    pub fn describe(self) -> &'static str {
        match self {
            ProblemOption::GoodIdea => "succeed with a good idea",
            ProblemOption::Background => "succeed by spending a background point",
            ProblemOption::Complication => "succeed with a significant complication",
            ProblemOption::Failure => "fail in an interesting way",
        }
    }

    /// Whether it is a success (options 1–3).
    pub fn succeeds(self) -> bool {
        self != ProblemOption::Failure
    }
}

/// Which of belief and flaw a complication or a failure plays (and marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// The belief.
    Belief,
    /// The flaw.
    Flaw,
}

impl Mark {
    fn word(self) -> &'static str {
        match self {
            Mark::Belief => "the belief",
            Mark::Flaw => "the flaw",
        }
    }
}

/// One player's choice: the option and what it uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// The option, 1–4.
    pub option: ProblemOption,
    /// For options 3 and 4: the belief or the flaw played. When not given, option 3 plays the
    /// belief and option 4 the flaw, or the other one if that is already marked (the book:
    /// "typically … or sometimes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<Mark>,
    /// For option 2: the background paying the point; when not given, the first one with a
    /// point left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
}

impl Choice {
    /// A choice of an option with the defaults for what it uses.
    pub fn of(option: ProblemOption) -> Choice {
        Choice { option, mark: None, background: None }
    }

    /// Checks the option's requirement against the character's sheet (§7) and fills in what
    /// it uses: option 2 needs a background point left, options 3 and 4 an unmarked belief or
    /// flaw. Returns the completed choice.
    pub fn check(&self, sheet: &Sheet) -> Result<Choice, CampaignError> {
        let name = sheet.name().to_owned();
        let mut c = self.clone();
        match self.option {
            ProblemOption::GoodIdea => {
                c.mark = None;
                c.background = None;
            }
            ProblemOption::Background => {
                c.mark = None;
                let spent = sheet.spend_background(self.background.as_deref())?;
                // Name the background that pays, so the cost is exact when settled.
                let paying = sheet
                    .backgrounds
                    .iter()
                    .zip(&spent.backgrounds)
                    .find(|(a, b)| a.left() != b.left())
                    .map(|(a, _)| a.name.clone());
                c.background = paying;
            }
            ProblemOption::Complication | ProblemOption::Failure => {
                c.background = None;
                let marked = |m: Mark| match m {
                    Mark::Belief => sheet.belief_marked,
                    Mark::Flaw => sheet.flaw_marked,
                };
                let mark = match self.mark {
                    Some(m) => m,
                    None => {
                        let usual = if self.option == ProblemOption::Complication {
                            Mark::Belief
                        } else {
                            Mark::Flaw
                        };
                        let other = if usual == Mark::Belief { Mark::Flaw } else { Mark::Belief };
                        if marked(usual) { other } else { usual }
                    }
                };
                if marked(mark) {
                    let what = if marked(Mark::Belief) && marked(Mark::Flaw) {
                        "the belief and the flaw are".to_owned()
                    } else {
                        format!("{} is", mark.word())
                    };
                    return Err(CampaignError::AlreadyMarked { name, what });
                }
                c.mark = Some(mark);
            }
        }
        Ok(c)
    }
}

/// One interested player's character and its face-down choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The character.
    pub character: String,
    /// The choice, face down until the reveal; `None` until made.
    pub choice: Option<Choice>,
    /// When the character last decided a problem's outcome (a number growing with each
    /// problem settled: larger is more recent), for the tie-break; `None` if never. Taken at
    /// the reveal.
    #[serde(default)]
    pub last_decided: Option<u64>,
}

/// Who decides the outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// A player's character, with the choice that takes effect.
    Character {
        /// The character.
        name: String,
        /// Its choice.
        choice: Choice,
    },
    /// The GM: nobody chose, or nobody could narrate (§7).
    Gm,
}

/// Where a problem is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "stage")]
pub enum Stage {
    /// The interested players are choosing, face down.
    Choosing,
    /// Revealed; the highest choices tie between players who decided equally recently (or
    /// never): the GM names which of them narrates (§7).
    GmTie {
        /// The tied characters.
        tied: Vec<String>,
        /// Characters already passed over because they could not narrate within the rules:
        /// they stay passed over after the GM names a narrator.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        passed: Vec<String>,
    },
    /// A character narrates the outcome; the others may veto until it is settled.
    Narrating {
        /// Who narrates, and with which choice.
        decider: Decider,
        /// Characters already passed over because they could not narrate within the rules.
        passed: Vec<String>,
        /// The veto that replaced the first narrator's choice, if any.
        vetoed: Option<String>,
    },
    /// Decided; the costs were paid.
    Settled {
        /// Who decided the outcome.
        decider: Decider,
        /// Who vetoed, if anyone.
        vetoed: Option<String>,
    },
}

/// A problem (§7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Its number in the campaign (increasing; used as "when" for the tie-break).
    pub id: u64,
    /// What stands in the way.
    pub description: String,
    /// The interested players' characters and their choices.
    pub entries: Vec<Entry>,
    /// Where it is.
    pub stage: Stage,
}

/// What a character pays when a problem is settled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cost {
    /// A background point (option 2).
    BackgroundPoint(Option<String>),
    /// Mark the belief or the flaw, and §10's first question (options 3 and 4).
    Mark(Mark),
    /// Mark the veto.
    Veto,
}

/// Applies a cost to a sheet, checked again: a background spent, a belief or flaw marked, or
/// a veto used since the choice is refused (§7).
pub fn pay(sheet: &Sheet, cost: &Cost) -> Result<Sheet, CampaignError> {
    match cost {
        Cost::BackgroundPoint(b) => sheet.spend_background(b.as_deref()),
        Cost::Mark(m) => {
            let mut s = sheet.clone();
            let mark = match m {
                Mark::Belief => &mut s.belief_marked,
                Mark::Flaw => &mut s.flaw_marked,
            };
            if *mark {
                return Err(CampaignError::AlreadyMarked {
                    name: sheet.name().to_owned(),
                    what: format!("{} is", m.word()),
                });
            }
            *mark = true;
            s.played_belief_or_flaw = true;
            Ok(s)
        }
        Cost::Veto => {
            if sheet.veto_used {
                return Err(CampaignError::VetoUsed(sheet.name().to_owned()));
            }
            let mut s = sheet.clone();
            s.veto_used = true;
            Ok(s)
        }
    }
}

fn costs_of(choice: &Choice) -> Option<Cost> {
    match choice.option {
        ProblemOption::GoodIdea => None,
        ProblemOption::Background => Some(Cost::BackgroundPoint(choice.background.clone())),
        ProblemOption::Complication | ProblemOption::Failure => choice.mark.map(Cost::Mark),
    }
}

fn err(msg: impl Into<String>) -> CampaignError {
    CampaignError::Problem(msg.into())
}

impl Problem {
    /// A new problem for the interested players' characters (none: the GM decides).
    pub fn new(id: u64, description: &str, characters: &[String]) -> Result<Problem, CampaignError> {
        let mut entries: Vec<Entry> = Vec::new();
        for c in characters {
            if entries.iter().any(|e| e.character.eq_ignore_ascii_case(c)) {
                return Err(err(format!("{c} is listed twice")));
            }
            entries.push(Entry { character: c.clone(), choice: None, last_decided: None });
        }
        Ok(Problem { id, description: description.trim().to_owned(), entries, stage: Stage::Choosing })
    }

    fn entry(&self, name: &str) -> Result<usize, CampaignError> {
        self.entries
            .iter()
            .position(|e| e.character.eq_ignore_ascii_case(name))
            .ok_or_else(|| CampaignError::NotInProblem(name.to_owned()))
    }

    /// A player chooses, face down (§7). The option's requirement is checked against the
    /// sheet now; nothing is paid until the problem is settled. A choice, once down, is final.
    pub fn choose(&self, sheet: &Sheet, choice: &Choice) -> Result<Problem, CampaignError> {
        if self.stage != Stage::Choosing {
            return Err(err(format!("problem {} is past choosing: the choices are revealed", self.id)));
        }
        let i = self.entry(sheet.name())?;
        if sheet.character.dead {
            return Err(CampaignError::Dead(sheet.name().to_owned()));
        }
        if self.entries[i].choice.is_some() {
            return Err(err(format!("{} has already chosen; a face-down choice is final", sheet.name())));
        }
        let checked = choice.check(sheet)?;
        let mut p = self.clone();
        p.entries[i].choice = Some(checked);
        Ok(p)
    }

    /// Whether every interested player has chosen.
    pub fn all_chosen(&self) -> bool {
        self.entries.iter().all(|e| e.choice.is_some())
    }

    /// Reveals the choices (§7). Players who did not choose are left out; if nobody chose, the
    /// GM decides. `last_decided` gives, per character, the number of the problem whose
    /// outcome it last decided.
    pub fn reveal(&self, last_decided: &dyn Fn(&str) -> Option<u64>) -> Result<Problem, CampaignError> {
        if self.stage != Stage::Choosing {
            return Err(err(format!("problem {} is already revealed", self.id)));
        }
        let mut p = self.clone();
        for e in &mut p.entries {
            e.last_decided = last_decided(&e.character);
        }
        p.stage = p.next_decider(&[]);
        Ok(p)
    }

    /// The highest choice among those not passed over, with the tie-break: the tied player who
    /// least recently decided a problem's outcome (never counts as least recent); a tie that
    /// remains goes to the GM. Nobody left: the GM decides.
    fn next_decider(&self, passed: &[String]) -> Stage {
        let left: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.choice.is_some() && !passed.iter().any(|p| p.eq_ignore_ascii_case(&e.character)))
            .collect();
        let Some(best) = left.iter().filter_map(|e| e.choice.as_ref().map(|c| c.option)).max() else {
            return Stage::Narrating { decider: Decider::Gm, passed: passed.to_vec(), vetoed: None };
        };
        let top: Vec<&&Entry> =
            left.iter().filter(|e| e.choice.as_ref().is_some_and(|c| c.option == best)).collect();
        // None (never decided) sorts before any problem number: least recent.
        let least = top.iter().map(|e| e.last_decided).min().flatten();
        let tied: Vec<&&Entry> = top.iter().filter(|e| e.last_decided == least).copied().collect();
        match tied.as_slice() {
            [one] => Stage::Narrating {
                decider: Decider::Character {
                    name: one.character.clone(),
                    choice: one.choice.clone().unwrap_or_else(|| Choice::of(best)),
                },
                passed: passed.to_vec(),
                vetoed: None,
            },
            _ => Stage::GmTie {
                tied: tied.iter().map(|e| e.character.clone()).collect(),
                passed: passed.to_vec(),
            },
        }
    }

    /// The GM breaks a tie the least-recently-decided rule could not (§7).
    pub fn gm_breaks_tie(&self, name: &str) -> Result<Problem, CampaignError> {
        let Stage::GmTie { tied, passed } = &self.stage else {
            return Err(err(format!("problem {} has no tie for the GM to break", self.id)));
        };
        let Some(who) = tied.iter().find(|t| t.eq_ignore_ascii_case(name)) else {
            return Err(err(format!("{name} is not one of the tied players ({})", tied.join(", "))));
        };
        let i = self.entry(who)?;
        let mut p = self.clone();
        let choice = self.entries[i].choice.clone().ok_or_else(|| err("the tied player has no choice"))?;
        p.stage = Stage::Narrating {
            decider: Decider::Character { name: who.clone(), choice },
            passed: passed.clone(),
            vetoed: None,
        };
        Ok(p)
    }

    /// The narrator cannot describe the outcome within the rules: the next-highest choice
    /// wins (§7, GM escalation). After a veto, the vetoer's success stands (**Decision**).
    pub fn cannot_narrate(&self) -> Result<Problem, CampaignError> {
        let Stage::Narrating { decider, passed, vetoed } = &self.stage else {
            return Err(err(format!("nobody is narrating problem {}", self.id)));
        };
        if vetoed.is_some() {
            return Err(err("a veto's success is not passed on; the vetoing player narrates it"));
        }
        let Decider::Character { name, .. } = decider else {
            return Err(err("the GM is deciding this problem"));
        };
        let mut passed = passed.clone();
        passed.push(name.clone());
        let mut p = self.clone();
        p.stage = self.next_decider(&passed);
        Ok(p)
    }

    /// A veto (§7): after a player narrated and before play moves on, another player
    /// substitutes its own success: option 1, or option 2 paying a background point. One per
    /// character (the sheet's mark); the first veto wins and cannot itself be vetoed. The
    /// vetoed choice costs nothing. **Decision:** any living player character may veto, not
    /// only those who chose; the GM's own decision cannot be vetoed.
    pub fn veto(&self, vetoer: &Sheet, choice: &Choice) -> Result<Problem, CampaignError> {
        let Stage::Narrating { decider, passed, vetoed } = &self.stage else {
            return Err(err(format!("problem {}: a veto comes after a player narrates", self.id)));
        };
        if let Some(v) = vetoed {
            return Err(err(format!("{v} already vetoed: the first veto wins, and a veto cannot be vetoed")));
        }
        let Decider::Character { name, .. } = decider else {
            return Err(err("the GM decided this problem; only a player's narration can be vetoed"));
        };
        if name.eq_ignore_ascii_case(vetoer.name()) {
            return Err(err(format!("{name} cannot veto their own narration")));
        }
        if vetoer.character.dead {
            return Err(CampaignError::Dead(vetoer.name().to_owned()));
        }
        if vetoer.veto_used {
            return Err(CampaignError::VetoUsed(vetoer.name().to_owned()));
        }
        if !matches!(choice.option, ProblemOption::GoodIdea | ProblemOption::Background) {
            return Err(err(format!(
                "a veto substitutes a success: option 1 or 2, not {}",
                choice.option.number()
            )));
        }
        let checked = choice.check(vetoer)?;
        let mut p = self.clone();
        p.stage = Stage::Narrating {
            decider: Decider::Character { name: vetoer.name().to_owned(), choice: checked },
            passed: passed.clone(),
            vetoed: Some(vetoer.name().to_owned()),
        };
        Ok(p)
    }

    /// Play moves on: the outcome stands. Returns the settled problem and what each character
    /// pays: the deciding choice's cost (background point, belief or flaw mark) and the veto
    /// mark. Nobody else pays: the choices that did not win have no effect.
    pub fn settle(&self) -> Result<(Problem, Vec<(String, Cost)>), CampaignError> {
        let (decider, vetoed) = match &self.stage {
            Stage::Narrating { decider, vetoed, .. } => (decider.clone(), vetoed.clone()),
            Stage::GmTie { .. } => return Err(err("the GM must first break the tie")),
            Stage::Choosing => return Err(err("the choices are not revealed yet")),
            Stage::Settled { .. } => return Err(err(format!("problem {} is already settled", self.id))),
        };
        let mut costs = Vec::new();
        if let Decider::Character { name, choice } = &decider {
            if let Some(c) = costs_of(choice) {
                costs.push((name.clone(), c));
            }
            if vetoed.is_some() {
                costs.push((name.clone(), Cost::Veto));
            }
        }
        let mut p = self.clone();
        p.stage = Stage::Settled { decider, vetoed };
        Ok((p, costs))
    }

    /// Who narrates now (or decided), if a character.
    pub fn decider(&self) -> Option<&Decider> {
        match &self.stage {
            Stage::Narrating { decider, .. } | Stage::Settled { decider, .. } => Some(decider),
            _ => None,
        }
    }

    /// Whether the choices are visible to everyone (after the reveal).
    pub fn revealed(&self) -> bool {
        self.stage != Stage::Choosing
    }

    /// The problem as everyone may see it: before the reveal, each choice is face down (only
    /// whether it was made shows).
    pub fn view(&self) -> ProblemView {
        let revealed = self.revealed();
        ProblemView {
            id: self.id,
            description: self.description.clone(),
            entries: self
                .entries
                .iter()
                .map(|e| EntryView {
                    character: e.character.clone(),
                    chosen: e.choice.is_some(),
                    choice: if revealed { e.choice.clone() } else { None },
                })
                .collect(),
            stage: self.stage.clone(),
        }
    }
}

/// What everyone may see of a problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemView {
    /// Its number.
    pub id: u64,
    /// What stands in the way.
    pub description: String,
    /// The players and, once revealed, their choices.
    pub entries: Vec<EntryView>,
    /// Where it is.
    pub stage: Stage,
}

/// One player as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryView {
    /// The character.
    pub character: String,
    /// Whether it has chosen.
    pub chosen: bool,
    /// Its choice, once revealed.
    pub choice: Option<Choice>,
}
