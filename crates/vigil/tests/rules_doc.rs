//! `docs/rules.md` is generated from the rule table and must match it: a rule added,
//! renamed or reworded in the code without regenerating the page fails here (and in CI).
//! `cargo xtask rules` regenerates it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[test]
fn docs_rules_md_lists_every_rule_as_the_code_does() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let generated = vigil::rules::rules_markdown();
    if std::env::var_os("VIGIL_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/rules.md is out of date with crates/vigil/src/rules.rs; run `cargo xtask rules`"
    );
    for rule in vigil::Rule::ALL {
        assert!(
            on_disk.contains(&format!("`{}`", rule.code())),
            "{}",
            rule.code()
        );
    }
}
