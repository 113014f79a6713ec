//! `vigil info --json`: the same facts as the text listing, as well-formed JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

fn vigil(args: &[&str]) -> String {
    common::run_ok(args)
}

/// Brackets balance outside strings, and strings close (a structural JSON check).
fn balanced(json: &str) -> bool {
    let (mut stack, mut in_str, mut escaped) = (Vec::new(), false, false);
    for c in json.chars() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => stack.push(c),
            '}' if stack.pop() != Some('{') => return false,
            ']' if stack.pop() != Some('[') => return false,
            _ => {}
        }
    }
    stack.is_empty() && !in_str
}

#[test]
fn info_json_lists_the_adapters_the_text_listing_shows() {
    let text = vigil(&["info"]);
    let json = vigil(&["info", "--json"]);
    assert!(balanced(&json), "{json}");
    assert!(json.starts_with("{\"default\":"), "{json}");
    // Every adapter of the text listing, with its name, features and every limit.
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("adapter "))
        .filter_map(|l| {
            l.split_once(": ")
                .map(|(_, n)| n.trim_end_matches("  (default)"))
        })
        .collect();
    assert!(!names.is_empty(), "{text}");
    for name in &names {
        assert!(
            json.contains(&format!("\"name\":\"{name}\"")),
            "{name}: {json}"
        );
    }
    assert_eq!(json.matches("\"limits\":{").count(), names.len());
    let limit_lines = text
        .lines()
        .filter(|l| l.starts_with("    ") && l.trim_start().starts_with("max_"))
        .count();
    assert_eq!(json.matches("\"max_").count(), limit_lines, "{json}");
    assert_eq!(json.matches("\"default\":true").count(), 1, "{json}");
}
