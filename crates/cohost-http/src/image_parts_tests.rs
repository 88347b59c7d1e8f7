//! Each HTTP protocol sends an attached image as its own image part.

use super::normalize::RequestCtx;
use super::transcript::Transcript;
use cohost_core::PromptImage;
use serde_json::{json, Value};

fn with_image() -> Transcript {
    let mut t = Transcript::new("s1", "p");
    t.push_user_with(
        "what is this",
        vec![PromptImage {
            path: "/w/p.png".into(),
            media_type: "image/png".into(),
            data: "AAAA".into(),
        }],
    );
    t
}

fn ctx() -> RequestCtx<'static> {
    RequestCtx {
        model: "m",
        system: None,
        tools: &[],
        max_tokens: 16,
        reasoning: false,
    }
}

fn user(body: &Value, list: &str) -> Value {
    body[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone()
}

#[test]
fn every_protocol_has_its_image_part() {
    let t = with_image();
    let a = user(&super::anthropic::request_body(&t, &ctx()), "messages");
    assert_eq!(
        a["content"][0],
        json!({"type": "text", "text": "what is this"})
    );
    assert_eq!(
        a["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}})
    );
    let o = user(&super::openai_chat::request_body(&t, &ctx()), "messages");
    assert_eq!(
        o["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}})
    );
    let r = user(&super::openai_responses::request_body(&t, &ctx()), "input");
    assert_eq!(
        r["content"][1],
        json!({"type": "input_image", "image_url": "data:image/png;base64,AAAA"})
    );
    let g = user(&super::gemini::request_body(&t, &ctx()), "contents");
    assert_eq!(
        g["parts"][1],
        json!({"inline_data": {"mime_type": "image/png", "data": "AAAA"}})
    );
    let l = user(&super::ollama::request_body(&t, &ctx()), "messages");
    assert_eq!(l["images"], json!(["AAAA"]));
    // Without images the plain shapes stay as they were.
    let mut plain = Transcript::new("s2", "p");
    plain.push_user("hi");
    let o = user(
        &super::openai_chat::request_body(&plain, &ctx()),
        "messages",
    );
    assert_eq!(o["content"], "hi");
}
