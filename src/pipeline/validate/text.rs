//! Text helpers shared by the summarizer and the reconstructor: quoted spans,
//! splitting outside quotes, sentence breaks, clause sanitizing and tokens.
//!
//! Quoted parameters (`'/home/user/Documents/a.txt'`, `"Q3 report"`) are opaque: no
//! separator inside them counts. A quote opens at `'` or `"` that follows the start
//! or a non-alphanumeric character and closes at the same character followed by the
//! end or a non-alphanumeric character, so apostrophes (`it's`, `users' files`) do
//! not open quotes.

/// Byte mask: `true` for every byte inside a quoted span (quotes included).
pub(crate) fn quote_mask(text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut mask = vec![false; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let opens = (c == b'\'' || c == b'"')
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes.get(i + 1).is_some_and(|b| !b.is_ascii_whitespace());
        if opens {
            let close = (i + 1..bytes.len()).find(|&j| {
                bytes[j] == c
                    && j > i + 1
                    && bytes.get(j + 1).is_none_or(|b| !b.is_ascii_alphanumeric())
            });
            if let Some(j) = close {
                for m in &mut mask[i..=j] {
                    *m = true;
                }
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    mask
}

/// The quoted spans of `text`, quotes included, in order.
pub(crate) fn quoted_spans(text: &str) -> Vec<&str> {
    let mask = quote_mask(text);
    let mut out = Vec::new();
    let mut start = None;
    for (i, &m) in mask.iter().enumerate() {
        match (m, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    // Adjacent spans ('a''b') are merged by the mask; that is harmless here.
    out
}

/// Splits `text` at every occurrence of one of `seps` that starts outside quotes.
/// Separators are tried in the given order at each position (put longer ones
/// first) and matched case-insensitively. Pieces are trimmed; empty ones kept.
pub(crate) fn split_outside<'a>(text: &'a str, seps: &[&str]) -> Vec<&'a str> {
    let mask = quote_mask(text);
    let lower = text.to_ascii_lowercase();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < text.len() {
        if !text.is_char_boundary(i) || mask[i] {
            i += 1;
            continue;
        }
        if let Some(sep) = seps
            .iter()
            .find(|s| lower[i..].starts_with(&s.to_ascii_lowercase()))
        {
            pieces.push(text[start..i].trim());
            i += sep.len();
            start = i;
        } else {
            i += 1;
        }
    }
    pieces.push(text[start..].trim());
    pieces
}

/// Sentences of `text`: a sentence ends at a `.`, `!` or `?` outside quotes that is
/// followed by whitespace or the end. The terminator is dropped; pieces trimmed;
/// empty pieces dropped.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mask = quote_mask(text);
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..bytes.len() {
        let ends = matches!(bytes[i], b'.' | b'!' | b'?')
            && !mask[i]
            && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if ends {
            out.push(text[start..i].trim());
            start = i + 1;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// Makes a clause safe to embed in the grammar: whitespace runs become one space;
/// outside quotes, `;` becomes `,`, sentence breaks become `,` and step markers
/// `(3)` lose their parentheses; a trailing `.` is dropped.
///
/// A quote character that could open a quote but has no closing partner becomes
/// its typographic form (`’`, `”`), so that it cannot pair with a quote of another
/// clause once clauses are joined into one instruction.
pub(crate) fn sanitize(text: &str) -> String {
    let collapsed = unpair_stray_quotes(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    let mask = quote_mask(&collapsed);
    let bytes = collapsed.as_bytes();
    let mut out = String::with_capacity(collapsed.len());
    let mut i = 0;
    while i < bytes.len() {
        if mask[i] {
            let ch_len = utf8_len(bytes[i]);
            out.push_str(&collapsed[i..i + ch_len]);
            i += ch_len;
            continue;
        }
        let c = bytes[i];
        match c {
            b';' => out.push(','),
            b'.' | b'!' | b'?' if bytes.get(i + 1) == Some(&b' ') => out.push(','),
            b'(' => {
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits > 0 && bytes.get(i + 1 + digits) == Some(&b')') {
                    out.push_str(&collapsed[i + 1..i + 1 + digits]);
                    i += digits + 2;
                    continue;
                }
                out.push('(');
            }
            _ => {
                let ch_len = utf8_len(c);
                out.push_str(&collapsed[i..i + ch_len]);
                i += ch_len;
                continue;
            }
        }
        i += 1;
    }
    let trimmed = out.trim().trim_end_matches(['.', '!', '?', ',']).trim_end();
    trimmed.to_string()
}

fn unpair_stray_quotes(text: &str) -> String {
    let mask = quote_mask(text);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, ch) in text.char_indices() {
        let stray = (ch == '\'' || ch == '"')
            && !mask[i]
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        match (stray, ch) {
            (true, '\'') => out.push('\u{2019}'),
            (true, _) => out.push('\u{201D}'),
            (false, _) => out.push(ch),
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Words too common in instructions to tell steps apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "it", "its", "of", "on", "or",
    "the", "then", "this", "that", "to", "with",
];

/// Lower-case alphanumeric tokens of `text` without stop words, sorted and unique.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Number of whitespace-separated words.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// `"1"`, `"1 and 2"`, `"1, 2 and 3"`.
pub(crate) fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Upper-cases the first character.
pub(crate) fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Lower-cases the first character unless the first word looks like a name or an
/// acronym (a second upper-case letter, a digit or a quote in it).
pub(crate) fn decapitalize(text: &str) -> String {
    let first_word = text.split_whitespace().next().unwrap_or("");
    let keep = first_word
        .chars()
        .skip(1)
        .any(|c| c.is_uppercase() || c.is_ascii_digit())
        || first_word.starts_with(['\'', '"']);
    if keep {
        return text.to_string();
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_ignore_apostrophes() {
        let text = "Open 'a b.txt' and it's the users' file 'c'.";
        assert_eq!(quoted_spans(text), vec!["'a b.txt'", "'c'"]);
    }

    #[test]
    fn split_skips_separators_inside_quotes() {
        let text = "Open 'x, and y' in Writer, and save it";
        assert_eq!(
            split_outside(text, &[", and ", ", "]),
            vec!["Open 'x, and y' in Writer", "save it"]
        );
    }

    #[test]
    fn sentences_keep_dots_inside_words_and_quotes() {
        let text = "Goal: mail bob.lee@example.com. Then, open 'a. b.txt'. Done";
        assert_eq!(
            sentences(text),
            vec![
                "Goal: mail bob.lee@example.com",
                "Then, open 'a. b.txt'",
                "Done"
            ]
        );
    }

    #[test]
    fn sanitize_removes_grammar_characters_outside_quotes() {
        assert_eq!(
            sanitize("Do (2) things; see e.g. this 'a; (3). b'."),
            "Do 2 things, see e.g, this 'a; (3). b'"
        );
    }

    #[test]
    fn stray_quotes_cannot_pair_across_clauses() {
        let a = sanitize("play the '90s mix. Now");
        let b = sanitize("open 'x.txt'");
        assert_eq!(a, "play the \u{2019}90s mix, Now");
        let joined = format!("First, {a}. Then, {b}.");
        assert_eq!(sentences(&joined).len(), 2);
    }

    #[test]
    fn tokens_drop_stop_words_and_split_paths() {
        assert_eq!(
            tokens("Open '/home/user/a_b.txt' in the Writer"),
            vec!["a", "b", "home", "open", "txt", "user", "writer"]
                .into_iter()
                .filter(|w| *w != "a")
                .collect::<Vec<_>>()
        );
    }
}
