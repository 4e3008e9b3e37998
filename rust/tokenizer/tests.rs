use super::*;

fn cl() -> &'static Tokenizer {
    Tokenizer::get(EncodingName::Cl100kBase)
}

#[test]
fn smoke() {
    assert_eq!(cl().count_ordinary("hello world"), 2);
}
