//! Topics: what the things on the desktop are about (`resources/topics.toml`).
//!
//! A topic is a subject a person works on ("the summer trip") with the words that
//! mark a value (a file name, record, address or typed text) as belonging to it.
//! Owns loading and checking that file and telling which topic a value belongs to.
//! The composer keeps every task to one topic ([`crate::graph::Pool::topic_parts`]),
//! the explorer pairs a subtask's inputs within a topic, and a task's intent opens
//! with its topic's purpose.
//!
//! Matching: a value is split into lower-case words of letters and digits
//! ('summer_trip_costs.csv' → summer, trip, costs, csv); a topic word matches a run
//! of whole words ("summer trip"). The value belongs to the topic of its longest
//! match (the first topic in the file on a tie), or to none. A file path of no
//! topic counts as one more topic, [`LOOSE_FILES`].
//!
//! Circles: whose business a topic is, work or home. A circle's words mark values
//! of no topic and the fixed text of an instruction as belonging to it (an
//! address 'family@example.com', a note filed "under Work"); a task keeps to its
//! topic's circle, so the team budget is not mailed to the family and the
//! summer trip's note is not filed under Work.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::resources::{read_toml, CatalogError};

/// The most topics a file may list (a [`TopicSet`] is one bit per topic, and
/// one more for [`LOOSE_FILES`]).
pub const MAX_TOPICS: usize = 63;

/// The set bit of a file path that belongs to no topic ('welcome.txt',
/// 'sleeping_cat.png'): such files count as a topic of their own, so a task never
/// inserts a stray picture into the quarterly report, while values of no topic
/// that are no files (a calculation, 'alice@example.com') go anywhere.
pub const LOOSE_FILES: usize = 63;

/// One topic of `topics.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topic {
    pub name: String,
    /// Why a task of the topic is done, as it opens an intent ("for the summer
    /// trip"); empty (left out) for a topic whose tasks have no one purpose.
    #[serde(default)]
    pub purpose: String,
    pub words: Vec<String>,
    /// Whose business it is (a circle's name); a topic without one takes no
    /// value of any circle.
    #[serde(default)]
    pub circle: Option<String>,
    /// What a person notes down about it (a note's body: "Electricity 84.20
    /// due on the 15th."): each line keeps to the topic, naming no word of
    /// another topic or of another circle.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Sums a person works out about it ("84.20+31.50": the electricity and
    /// water bills): what a calculator is given. A figure belongs to no topic:
    /// tied to its topic, it was pasted as a bare row into the topic's ledger,
    /// which readers rejected as breaking the file.
    #[serde(default)]
    pub figures: Vec<String>,
}

/// One circle of `topics.toml`: work or home, with the words that mark a value or
/// an instruction as belonging to it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Circle {
    pub name: String,
    pub words: Vec<String>,
    /// Where a person of the circle meets about its topics: the location of
    /// a calendar event ("Room 2" for work, "Cafe Lisboa" for home; a reader
    /// took a sales figures call held in a café for no meeting anyone holds).
    #[serde(default)]
    pub places: Vec<String>,
}

/// The most circles a file may list (a [`CircleSet`] is one bit per circle).
pub const MAX_CIRCLES: usize = 8;

/// A set of circles, one bit per circle in file order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CircleSet(pub u8);

impl CircleSet {
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Does every circle of `self` belong to `other`?
    pub fn within(self, other: CircleSet) -> bool {
        self.0 & !other.0 == 0
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopicsFile {
    topics: Vec<Topic>,
    #[serde(default)]
    circles: Vec<Circle>,
    #[serde(default)]
    subjects: BTreeMap<String, String>,
}

/// A set of topics, one bit per topic in file order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicSet(pub u64);

impl TopicSet {
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many topics the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn union(self, other: TopicSet) -> TopicSet {
        TopicSet(self.0 | other.0)
    }

    /// The topic indices in the set, in file order ([`LOOSE_FILES`] last).
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..=LOOSE_FILES).filter(move |i| self.0 & (1 << i) != 0)
    }

    /// The one topic of a set of exactly one.
    pub fn single(self) -> Option<usize> {
        (self.len() == 1).then(|| self.0.trailing_zeros() as usize)
    }
}

/// The loaded topics with their words split for matching.
#[derive(Debug, Clone, Default)]
pub struct Topics {
    topics: Vec<Topic>,
    /// (topic index, the word's lower-case words), longest first.
    patterns: Vec<(usize, Vec<String>)>,
    /// Names among the topics' words, as written ("Lisbon"), by lower case.
    names: BTreeMap<String, String>,
    /// (circle index, the word's lower-case words).
    circle_patterns: Vec<(usize, Vec<String>)>,
    /// The circle of each topic, by topic index.
    topic_circles: Vec<CircleSet>,
    /// Each circle's `places`, by circle index.
    circle_places: Vec<Vec<String>>,
    /// How a file's name reads as a subject, by file stem (`[subjects]`).
    subjects: BTreeMap<String, String>,
    /// The topic of each figure (`figures`), by the figure as written.
    figure_topics: BTreeMap<String, usize>,
}

/// Months and days of the week: names in English whatever the topics say
/// ("the March invoice").
const CALENDAR_NAMES: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl Topics {
    /// Reads `path`; a workspace without the file has no topics (every value
    /// belongs to none, so composition is not split by topic).
    ///
    /// # Errors
    /// A parse error names the file and line; a file with more than
    /// [`MAX_TOPICS`] topics, an empty word, or a word in two topics is refused
    /// naming the topic.
    pub fn load(path: &Path) -> Result<Topics, CatalogError> {
        if !path.exists() {
            return Ok(Topics::default());
        }
        let file: TopicsFile = read_toml(path)?;
        Topics::new(file.topics)
            .and_then(|t| t.with_circles(file.circles))
            .and_then(|t| t.with_subjects(file.subjects))
            .and_then(Topics::with_checked_notes)
            .map_err(|message| CatalogError::Invalid {
                path: path.to_path_buf(),
                message,
            })
    }

    /// These topics with `circles`: every topic's `circle` must name one of them.
    ///
    /// # Errors
    /// More than [`MAX_CIRCLES`] circles, an empty word, or a topic naming a
    /// circle that is not listed (naming the topic).
    pub fn with_circles(mut self, circles: Vec<Circle>) -> Result<Topics, String> {
        if circles.len() > MAX_CIRCLES {
            return Err(format!(
                "{} circles, more than the {MAX_CIRCLES} supported",
                circles.len()
            ));
        }
        let mut patterns = Vec::new();
        for (i, c) in circles.iter().enumerate() {
            for w in &c.words {
                let words = words_of(w);
                if words.is_empty() {
                    return Err(format!("circle '{}' has an empty word", c.name));
                }
                patterns.push((i, words));
            }
        }
        let mut topic_circles = Vec::with_capacity(self.topics.len());
        for t in &self.topics {
            let set = match &t.circle {
                None => CircleSet::default(),
                Some(name) => {
                    let i = circles.iter().position(|c| &c.name == name).ok_or_else(|| {
                        format!(
                            "topic '{}' names the circle '{name}', which is not listed under [[circles]]",
                            t.name
                        )
                    })?;
                    CircleSet(1 << i)
                }
            };
            topic_circles.push(set);
        }
        self.circle_patterns = patterns;
        self.topic_circles = topic_circles;
        self.circle_places = circles.into_iter().map(|c| c.places).collect();
        Ok(self)
    }

    /// These topics once every topic's `notes` keep to it: a line naming a
    /// word of another topic or of another circle would carry its note into
    /// that topic's tasks.
    ///
    /// # Errors
    /// The first line that strays, naming its topic.
    pub fn with_checked_notes(self) -> Result<Topics, String> {
        for (i, t) in self.topics.iter().enumerate() {
            for line in &t.notes {
                let words = words_of(line);
                let strays = self
                    .patterns
                    .iter()
                    .any(|(o, p)| *o != i && words.windows(p.len()).any(|w| w == p.as_slice()));
                if strays {
                    return Err(format!(
                        "a note of topic '{}' names a word of another topic: '{line}'",
                        t.name
                    ));
                }
                if !self
                    .circles_of([line.as_str()])
                    .within(self.circle_of_topic(i))
                {
                    return Err(format!(
                        "a note of topic '{}' names a word of another circle: '{line}'",
                        t.name
                    ));
                }
            }
        }
        Ok(self)
    }

    /// What a person notes down about the topic of `value` (one of its
    /// `notes`, the `i`-th in turn); `None` for a value of no topic or of a
    /// topic without notes.
    pub fn note_about(&self, value: &str, i: usize) -> Option<&str> {
        let notes = &self.topics.get(self.topic_of(value)?)?.notes;
        (!notes.is_empty()).then(|| notes[i % notes.len()].as_str())
    }

    /// The topic whose figure `value` is (`figures`).
    pub fn figure_topic(&self, value: &str) -> Option<usize> {
        self.figure_topics.get(value).copied()
    }

    /// The `i`-th of the topics' figures, taken in rounds over the topics
    /// that have some (first figures of each first); `None` without figures.
    pub fn figure(&self, i: usize) -> Option<&str> {
        let longest = self.topics.iter().map(|t| t.figures.len()).max()?;
        let all: Vec<&str> = (0..longest)
            .flat_map(|round| self.topics.iter().filter_map(move |t| t.figures.get(round)))
            .map(String::as_str)
            .collect();
        (!all.is_empty()).then(|| all[i % all.len()])
    }

    /// Where one meets about `value` (a file stem, a record): the `places` of
    /// its topic's circle; empty for a value of no topic or a circle without
    /// places.
    pub fn places_for(&self, value: &str) -> &[String] {
        let Some(set) = self.topic_of(value).map(|t| self.circle_of_topic(t)) else {
            return &[];
        };
        (0..self.circle_places.len())
            .find(|&c| set.0 & (1 << c) != 0)
            .map_or(&[], |c| self.circle_places[c].as_slice())
    }

    /// The circle of topic `t` (empty for a topic without one, or no topics).
    pub fn circle_of_topic(&self, t: usize) -> CircleSet {
        self.topic_circles.get(t).copied().unwrap_or_default()
    }

    /// The circles some texts belong to: a value of a topic belongs to its
    /// topic's circle, and any text to each circle one of its words names
    /// ("family@example.com"; "file the note under Work").
    pub fn circles_of<'v>(&self, texts: impl IntoIterator<Item = &'v str>) -> CircleSet {
        let mut set = 0u8;
        for text in texts {
            if let Some(t) = self.topic_of(text) {
                set |= self.circle_of_topic(t).0;
            }
            let words = words_of(text);
            for (i, p) in &self.circle_patterns {
                if words.windows(p.len()).any(|w| w == p.as_slice()) {
                    set |= 1 << i;
                }
            }
        }
        CircleSet(set)
    }

    /// Topics from parsed entries (see [`Topics::load`] for what is refused).
    pub fn new(topics: Vec<Topic>) -> Result<Topics, String> {
        if topics.len() > MAX_TOPICS {
            return Err(format!(
                "{} topics, more than the {MAX_TOPICS} supported",
                topics.len()
            ));
        }
        let mut patterns: Vec<(usize, Vec<String>)> = Vec::new();
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        for (i, t) in topics.iter().enumerate() {
            for w in &t.words {
                for name in w
                    .split_whitespace()
                    .filter(|n| n.starts_with(char::is_uppercase))
                {
                    names.insert(name.to_lowercase(), name.to_string());
                }
                let words = words_of(w);
                if words.is_empty() {
                    return Err(format!("topic '{}' has an empty word", t.name));
                }
                if let Some((j, _)) = patterns.iter().find(|(_, p)| *p == words) {
                    return Err(format!(
                        "the word '{w}' is in both topic '{}' and topic '{}'",
                        topics[*j].name, t.name
                    ));
                }
                patterns.push((i, words));
            }
        }
        let mut figure_topics = BTreeMap::new();
        for (i, t) in topics.iter().enumerate() {
            for f in &t.figures {
                if !words_of(f)
                    .iter()
                    .all(|w| w.chars().all(|c| c.is_ascii_digit()))
                {
                    return Err(format!(
                        "topic '{}': the figure '{f}' is not a sum of numbers",
                        t.name
                    ));
                }
                if let Some(j) = figure_topics.insert(f.clone(), i) {
                    return Err(format!(
                        "the figure '{f}' is in both topic '{}' and topic '{}'",
                        topics[j].name, t.name
                    ));
                }
            }
        }
        // Longest first; the sort is stable, so file order breaks ties.
        patterns.sort_by_key(|(_, p)| std::cmp::Reverse(p.len()));
        Ok(Topics {
            topic_circles: vec![CircleSet::default(); topics.len()],
            topics,
            patterns,
            names,
            circle_patterns: Vec::new(),
            circle_places: Vec::new(),
            subjects: BTreeMap::new(),
            figure_topics,
        })
    }

    /// These topics with `subjects`: how the stem of a file's name reads as a
    /// subject in a title or a subject line ("stock" is "stock list").
    ///
    /// # Errors
    /// An empty stem or subject, naming the stem.
    pub fn with_subjects(mut self, subjects: BTreeMap<String, String>) -> Result<Topics, String> {
        if let Some((stem, _)) = subjects
            .iter()
            .find(|(k, v)| k.trim().is_empty() || v.trim().is_empty())
        {
            return Err(format!("[subjects] has an empty entry for '{stem}'"));
        }
        self.subjects = subjects;
        Ok(self)
    }

    /// The subject a file's stem stands for (`[subjects]`), if listed.
    pub fn subject_of(&self, stem: &str) -> Option<&str> {
        self.subjects.get(stem).map(String::as_str)
    }

    /// `text` in lower case except for names: a word the topics write with a
    /// capital ("Lisbon"), a month or a day of the week. For a subject inside a
    /// sentence or title: "Prepare the Lisbon trip", not "Prepare lisbon".
    pub fn lower_but_names(&self, text: &str) -> String {
        text.split(' ')
            .map(|w| {
                let lower = w.to_lowercase();
                self.names
                    .get(&lower)
                    .cloned()
                    .or_else(|| {
                        let month_or_day =
                            CALENDAR_NAMES.iter().find(|n| n.eq_ignore_ascii_case(w));
                        month_or_day.map(|n| n.to_string())
                    })
                    .unwrap_or(lower)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&Topic> {
        self.topics.get(i)
    }

    /// The topic `value` belongs to, if any (see the module docs).
    pub fn topic_of(&self, value: &str) -> Option<usize> {
        if self.patterns.is_empty() {
            return None;
        }
        let words = words_of(value);
        self.patterns
            .iter()
            .find(|(_, p)| words.windows(p.len()).any(|w| w == p.as_slice()))
            .map(|(i, _)| *i)
    }

    /// The topics of some values; a file path of no topic adds [`LOOSE_FILES`]
    /// (when the workspace has topics at all).
    pub fn of<'v>(&self, values: impl IntoIterator<Item = &'v str>) -> TopicSet {
        if self.patterns.is_empty() {
            return TopicSet::default();
        }
        values
            .into_iter()
            .filter_map(|v| {
                self.topic_of(v)
                    .or_else(|| (v.starts_with('/') || v.starts_with("~/")).then_some(LOOSE_FILES))
            })
            .fold(TopicSet::default(), |s, i| TopicSet(s.0 | (1 << i)))
    }
}

/// Lower-case runs of letters and digits.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topics() -> Topics {
        let t = |name: &str, words: &[&str]| Topic {
            name: name.into(),
            purpose: format!("for the {name}"),
            words: words.iter().map(|w| w.to_string()).collect(),
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        };
        Topics::new(vec![
            t("trip", &["summer trip", "beach"]),
            t("money", &["budget", "team budget"]),
            t("team", &["team"]),
        ])
        .unwrap()
    }

    #[test]
    fn a_listed_stem_reads_as_its_subject() {
        let t = topics()
            .with_subjects(BTreeMap::from([(
                "stock".to_string(),
                "stock list".to_string(),
            )]))
            .unwrap();
        assert_eq!(t.subject_of("stock"), Some("stock list"));
        assert_eq!(t.subject_of("stock_total_row"), None);
        let err = topics()
            .with_subjects(BTreeMap::from([("stock".to_string(), " ".to_string())]))
            .unwrap_err();
        assert!(err.contains("'stock'"), "{err}");
    }

    #[test]
    fn a_value_belongs_to_its_longest_whole_word_match() {
        let t = topics();
        assert_eq!(
            t.topic_of("/home/user/Documents/summer_trip_costs.csv"),
            Some(0)
        );
        assert_eq!(t.topic_of("/home/user/Pictures/beach.jpg"), Some(0));
        assert_eq!(t.topic_of("Beaches"), None, "whole words only");
        // 'team budget' (two words) wins over 'team' (one).
        assert_eq!(t.topic_of("/home/user/Documents/team_budget.xlsx"), Some(1));
        assert_eq!(t.topic_of("team-offsite@example.org"), Some(2));
        assert_eq!(t.topic_of("alice@example.com"), None);
        let set = t.of(["beach.jpg", "alice@example.com", "team"]);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 2]);
        // A file of no topic is a loose file; other values of no topic are none.
        let loose = t.of(["/home/user/Desktop/welcome.txt", "alice@example.com"]);
        assert_eq!(loose.iter().collect::<Vec<_>>(), vec![LOOSE_FILES]);
        assert_eq!(t.of(["/home/user/welcome.txt", "beach.jpg"]).len(), 2);
        assert_eq!(set.single(), None);
        assert_eq!(t.of(["beach.jpg"]).single(), Some(0));
    }

    #[test]
    fn names_keep_their_capital_inside_a_sentence() {
        let t = Topics::new(vec![Topic {
            name: "trip".into(),
            purpose: "for the trip".into(),
            words: vec!["Lisbon".into(), "summer trip".into()],
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        }])
        .unwrap();
        assert_eq!(t.lower_but_names("Prepare Lisbon"), "prepare Lisbon");
        assert_eq!(t.lower_but_names("Invoice march"), "invoice March");
        assert_eq!(t.lower_but_names("Summer trip"), "summer trip");
        // Matching stays case-blind.
        assert_eq!(t.topic_of("/home/user/Downloads/lisbon.pdf"), Some(0));
        assert_eq!(
            Topics::default().lower_but_names("Lisbon in May"),
            "lisbon in May"
        );
    }

    #[test]
    fn a_word_in_two_topics_is_refused() {
        let t = |name: &str| Topic {
            name: name.into(),
            purpose: String::new(),
            words: vec!["Team".into()],
            circle: None,
            notes: Vec::new(),
            figures: Vec::new(),
        };
        let err = Topics::new(vec![t("a"), t("b")]).unwrap_err();
        assert!(
            err.contains("'Team'") && err.contains("'a'") && err.contains("'b'"),
            "{err}"
        );
    }

    #[test]
    fn a_value_takes_its_topics_circle_or_the_circle_its_words_name() {
        let t = |name: &str, words: &[&str], circle: &str| Topic {
            name: name.into(),
            purpose: String::new(),
            words: words.iter().map(|w| w.to_string()).collect(),
            circle: Some(circle.into()),
            notes: Vec::new(),
            figures: Vec::new(),
        };
        let c = |name: &str, words: &[&str]| Circle {
            name: name.into(),
            words: words.iter().map(|w| w.to_string()).collect(),
            places: vec![format!("{name} place")],
        };
        let topics = Topics::new(vec![
            t("trip", &["summer trip"], "home"),
            t("review", &["team budget"], "work"),
        ])
        .unwrap()
        .with_circles(vec![c("work", &["team", "work"]), c("home", &["family"])])
        .unwrap();
        let (work, home) = (CircleSet(1), CircleSet(2));
        assert_eq!(topics.circles_of(["family@example.com"]), home);
        assert_eq!(topics.circles_of(["team_budget.xlsx"]), work);
        assert_eq!(topics.circles_of(["summer_trip.txt"]), home);
        assert_eq!(
            topics.circles_of(["In Notes, file the note under Work"]),
            work
        );
        assert!(topics
            .circles_of(["alice@example.com", "networking"])
            .is_empty());
        // A meeting about the team budget is held where work meets.
        assert_eq!(topics.places_for("team_budget"), ["work place"]);
        assert!(topics.places_for("alice").is_empty());
        // A trip's note filed under Work is of both circles: within neither.
        let both = topics.circles_of(["summer_trip.txt", "under Work"]);
        assert!(!both.within(topics.circle_of_topic(0)) && !both.within(work));
        let err = Topics::new(vec![t("trip", &["trip"], "leisure")])
            .unwrap()
            .with_circles(vec![c("home", &["family"])])
            .unwrap_err();
        assert!(err.contains("'trip'") && err.contains("'leisure'"), "{err}");
    }

    #[test]
    fn figures_are_sums_of_numbers_listed_once() {
        let t = |name: &str, words: &[&str], figures: &[&str]| Topic {
            name: name.into(),
            purpose: String::new(),
            words: words.iter().map(|w| w.to_string()).collect(),
            circle: None,
            notes: Vec::new(),
            figures: figures.iter().map(|w| w.to_string()).collect(),
        };
        let topics = Topics::new(vec![
            t("trip", &["trip"], &["2*189+4*95"]),
            t("money", &["budget"], &["84.20+31.50", "12*9"]),
        ])
        .unwrap();
        assert_eq!(topics.figure_topic("84.20+31.50"), Some(1));
        assert_eq!(topics.figure_topic("125+37"), None, "a sum no topic lists");
        assert_eq!(
            topics.topic_of("84.20+31.50"),
            None,
            "a figure is pasted anywhere"
        );
        // In rounds: each topic's first figure, then the second ones.
        let taken: Vec<&str> = (0..4).filter_map(|i| topics.figure(i)).collect();
        assert_eq!(taken, ["2*189+4*95", "84.20+31.50", "12*9", "2*189+4*95"]);
        let err = Topics::new(vec![t("trip", &["trip"], &["two flights"])]).unwrap_err();
        assert!(err.contains("'two flights' is not a sum"), "{err}");
        let twice = Topics::new(vec![t("a", &["a"], &["1+1"]), t("b", &["b"], &["1+1"])]);
        assert!(twice.unwrap_err().contains("both topic 'a' and topic 'b'"));
    }

    #[test]
    fn a_note_keeps_to_its_topic_and_circle() {
        let t = |name: &str, words: &[&str], circle: &str, notes: &[&str]| Topic {
            name: name.into(),
            purpose: String::new(),
            words: words.iter().map(|w| w.to_string()).collect(),
            circle: Some(circle.into()),
            notes: notes.iter().map(|w| w.to_string()).collect(),
            figures: Vec::new(),
        };
        let circles = || {
            vec![Circle {
                name: "home".into(),
                words: vec!["family".into()],
                places: Vec::new(),
            }]
        };
        let load = |notes: &[&str]| {
            Topics::new(vec![
                t("trip", &["trip"], "home", notes),
                t("money", &["budget"], "home", &[]),
            ])
            .unwrap()
            .with_circles(circles())
            .unwrap()
            .with_checked_notes()
        };
        let ok = load(&["Pack sun cream.", "Trip: flights on the 14th."]).unwrap();
        assert_eq!(
            ok.note_about("summer_trip.txt", 1),
            Some("Trip: flights on the 14th.")
        );
        assert_eq!(
            ok.note_about("home_budget.xlsx", 0),
            None,
            "a topic without notes"
        );
        assert_eq!(ok.note_about("welcome.txt", 0), None, "no topic");
        let err = load(&["Trip budget: 900."]).unwrap_err();
        assert!(
            err.contains("'trip'") && err.contains("another topic"),
            "{err}"
        );
        let err = Topics::new(vec![Topic {
            circle: None,
            ..t("trip", &["trip"], "home", &["Ask the family."])
        }])
        .unwrap()
        .with_circles(circles())
        .unwrap()
        .with_checked_notes()
        .unwrap_err();
        assert!(err.contains("another circle"), "{err}");
    }

    #[test]
    fn the_shipped_file_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/topics.toml");
        let t = Topics::load(&path).unwrap();
        assert!(!t.is_empty());
        assert!(t
            .topic_of("/home/user/Documents/travel_itinerary.docx")
            .is_some());
    }
}
