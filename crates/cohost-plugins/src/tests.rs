use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn invalid_manifests_name_file_field_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "a_bad_toml.toml",
        "id = \"x\"\nbinary = [\"x\"\nprotocol = \"text\"\n",
    );
    write(d, "b_missing.toml", "id = \"nobin\"\nprotocol = \"text\"\n");
    write(
        d,
        "c_protocol.toml",
        "id = \"p\"\nbinary = \"p\"\nprotocol = \"grpc\"\n",
    );
    write(
        d,
        "d_unknown.toml",
        "id = \"u\"\nbinary = \"u\"\nprotocol = \"text\"\nbianry = 1\n",
    );
    write(
        d,
        "e_secret.toml",
        "id = \"s\"\nbinary = \"s\"\nprotocol = \"text\"\n[env]\nMY_API_KEY = \"sk-1\"\n",
    );
    write(
        d,
        "f_jsonl.toml",
        "id = \"j\"\nbinary = \"j\"\nprotocol = \"jsonl\"\n",
    );
    write(
        d,
        "g_id.toml",
        "id = \"Bad Id\"\nbinary = \"j\"\nprotocol = \"text\"\n",
    );
    write(
        d,
        "h_ok.toml",
        "id = \"good\"\nbinary = \"sh\"\nprotocol = \"text\"\n",
    );
    write(
        d,
        "i_dup.toml",
        "id = \"good\"\nbinary = \"sh\"\nprotocol = \"text\"\n",
    );
    write(d, "notes.txt", "not a manifest");
    let (factories, errors) =
        load_plugins(&[d.to_path_buf(), d.join("missing-dir")], Catalog::EMPTY);
    assert_eq!(factories.len(), 1);
    assert_eq!(factories[0].descriptor().id, "good");
    let by_file = |name: &str| {
        errors
            .iter()
            .find(|e| e.file.ends_with(name))
            .unwrap_or_else(|| panic!("no error for {name}: {errors:#?}"))
    };
    let e = by_file("a_bad_toml.toml");
    assert!(e.line.is_some() && e.column.is_some(), "{e}");
    let e = by_file("b_missing.toml");
    assert_eq!(e.field.as_deref(), Some("binary"), "{e}");
    assert!(e.reason.contains("missing"), "{e}");
    let e = by_file("c_protocol.toml");
    assert_eq!(e.field.as_deref(), Some("protocol"), "{e}");
    assert_eq!(e.line, Some(3));
    assert!(
        e.reason.contains("grpc") || e.reason.contains("variant"),
        "{e}"
    );
    assert_eq!(by_file("d_unknown.toml").field.as_deref(), Some("bianry"));
    assert_eq!(
        by_file("e_secret.toml").field.as_deref(),
        Some("env.MY_API_KEY")
    );
    assert_eq!(by_file("f_jsonl.toml").field.as_deref(), Some("jsonl"));
    assert_eq!(by_file("g_id.toml").field.as_deref(), Some("id"));
    assert_eq!(by_file("i_dup.toml").field.as_deref(), Some("id"));
    assert_eq!(errors.len(), 8, "{errors:#?}");
    // Shown to users with file, position, field and reason.
    let shown = by_file("c_protocol.toml").to_string();
    assert!(
        shown.contains("c_protocol.toml:3:") && shown.contains("`protocol`"),
        "{shown}"
    );
    assert_eq!(
        by_file("b_missing.toml").to_cohost().code,
        cohost_core::ErrorCode::ConfigInvalid
    );
}

#[test]
fn default_dirs_are_user_then_project() {
    let dirs = default_plugin_dirs(Path::new("/proj"));
    assert_eq!(dirs.last().unwrap(), Path::new("/proj/.cohost/agents"));
    assert!(dirs.len() == 2 && dirs[0].ends_with("cohost/agents"));
}

#[test]
fn acp_manifest_builds_an_acp_provider() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "g.toml",
        "id = \"my-gemini\"\nlabel = \"Mine\"\nbinary = [\"gemini\"]\nargs = [\"--acp\"]\nprotocol = \"acp\"\n[env]\nGEMINI_CLI_NO_RELAUNCH = \"true\"\n",
    );
    let (f, e) = load_plugins(&[dir.path().to_path_buf()], Catalog::EMPTY);
    assert!(e.is_empty(), "{e:?}");
    let d = f[0].descriptor();
    assert_eq!((d.id.as_str(), d.label.as_str()), ("my-gemini", "Mine"));
    assert_eq!(d.capabilities.approvals, ApprovalSupport::Blocking);
}

#[test]
fn pty_manifests_need_a_prompt_and_take_no_prompt_argument() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = "binary = \"python3\"\nprotocol = \"pty\"\n";
    write(d, "a_no_table.toml", &format!("id = \"a\"\n{base}"));
    write(
        d,
        "b_blank.toml",
        &format!("id = \"b\"\n{base}[pty]\nprompt = \"  \"\n"),
    );
    write(
        d,
        "c_prompt_arg.toml",
        &format!("id = \"c\"\nargs = [\"{{prompt}}\"]\n{base}[pty]\nprompt = \"> \"\n"),
    );
    write(
        d,
        "d_resume.toml",
        &format!("id = \"d\"\nresume_args = [\"-r\"]\n{base}[pty]\nprompt = \"> \"\n"),
    );
    write(
        d,
        "e_not_pty.toml",
        "id = \"e\"\nbinary = \"sh\"\nprotocol = \"text\"\n[pty]\nprompt = \"> \"\n",
    );
    write(
        d,
        "f_unknown.toml",
        &format!("id = \"f\"\n{base}[pty]\nprompt = \"> \"\nmarker = \"x\"\n"),
    );
    write(
        d,
        "g_ok.toml",
        &format!("id = \"g\"\nlabel = \"G\"\n{base}[pty]\nprompt = \"g> \"\n"),
    );
    let (f, errors) = load_plugins(&[d.to_path_buf()], Catalog::EMPTY);
    let field = |name: &str| {
        errors
            .iter()
            .find(|e| e.file.ends_with(name))
            .and_then(|e| e.field.clone())
            .unwrap_or_else(|| panic!("no error for {name}: {errors:#?}"))
    };
    assert_eq!(field("a_no_table.toml"), "pty");
    assert_eq!(field("b_blank.toml"), "pty.prompt");
    assert_eq!(field("c_prompt_arg.toml"), "args");
    assert_eq!(field("d_resume.toml"), "resume_args");
    assert_eq!(field("e_not_pty.toml"), "pty");
    assert_eq!(field("f_unknown.toml"), "marker");
    assert_eq!(errors.len(), 6, "{errors:#?}");
    let d = f[0].descriptor();
    assert_eq!((d.id.as_str(), d.label.as_str()), ("g", "G"));
    assert_eq!(d.capabilities.tier, SupportTier::Pty);
    assert_eq!(d.capabilities.approvals, ApprovalSupport::None);
    assert!(d.install_hint.is_some_and(|h| h.contains("python3")));
}

#[test]
fn wasm_manifests_need_a_component_and_sane_limits() {
    let file = Path::new("/plugins/w.toml");
    let parse = |extra: &str| {
        manifest::parse(
            file,
            &format!("id = \"w\"\nbinary = \"w\"\nprotocol = \"wasm\"\n{extra}"),
        )
    };
    let field = |extra: &str| parse(extra).unwrap_err().field.unwrap();
    assert_eq!(field(""), "wasm");
    assert_eq!(
        field("args = [\"{prompt}\"]\n[wasm]\ncomponent = \"a.wasm\"\n"),
        "args"
    );
    assert_eq!(field("[wasm]\ncomponent = \"\"\n"), "wasm.component");
    assert_eq!(
        field("[wasm]\ncomponent = \"a.wasm\"\nsha256 = \"abc\"\n"),
        "wasm.sha256"
    );
    assert_eq!(
        field("[wasm]\ncomponent = \"a.wasm\"\nmemory_mib = 0\n"),
        "wasm.memory_mib"
    );
    assert_eq!(
        field("[wasm]\ncomponent = \"a.wasm\"\ncall_time_ms = 600000\n"),
        "wasm.call_time_ms"
    );
    assert_eq!(field("[wasm]\ncomponent = \"a.wasm\"\nfuel = 1\n"), "fuel");
    // A [wasm] table belongs to protocol = "wasm" only.
    let text = manifest::parse(
        file,
        "id = \"t\"\nbinary = \"t\"\nprotocol = \"text\"\n[wasm]\ncomponent = \"a.wasm\"\n",
    );
    assert_eq!(text.unwrap_err().field.as_deref(), Some("wasm"));
    // The component is found beside the manifest.
    let m = parse("[wasm]\ncomponent = \"a.wasm\"\nmemory_mib = 16\n").unwrap();
    let w = m.wasm.unwrap();
    assert_eq!(w.component, Path::new("/plugins/a.wasm"));
    assert_eq!(wasm::limits_of(&w).memory_bytes, 16 << 20);
    assert_eq!(
        wasm::limits_of(&w).call_time,
        cohost_wasm::Limits::default().call_time
    );
    // A missing component is a load error naming the field.
    #[cfg(feature = "wasm-plugins")]
    a_missing_component_is_refused_naming_the_field();
}

#[cfg(feature = "wasm-plugins")]
fn a_missing_component_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "w.toml",
        "id = \"w\"\nbinary = \"sh\"\nprotocol = \"wasm\"\n[wasm]\ncomponent = \"nope.wasm\"\n",
    );
    let (factories, errors) = load_plugins(&[dir.path().to_path_buf()], Catalog::EMPTY);
    assert!(factories.is_empty());
    assert_eq!(errors[0].field.as_deref(), Some("wasm.component"));
    assert!(
        errors[0].reason.contains("nope.wasm"),
        "{}",
        errors[0].reason
    );
}

/// A build without `wasm-plugins` (`cargo nextest run -p cohost-agents
/// --no-default-features plugin::tests`): a `wasm` manifest is refused
/// naming `protocol` and the feature, and `cohost agents` lists none.
#[cfg(not(feature = "wasm-plugins"))]
#[test]
fn without_wasm_plugins_a_wasm_manifest_says_how_to_get_them() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.wasm", "not even a component");
    write(
        dir.path(),
        "w.toml",
        "id = \"w\"\nbinary = \"sh\"\nprotocol = \"wasm\"\n[wasm]\ncomponent = \"a.wasm\"\n",
    );
    let dirs = [dir.path().to_path_buf()];
    let (factories, errors) = load_plugins(&dirs, Catalog::EMPTY);
    assert!(factories.is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].field.as_deref(), Some("protocol"));
    let shown = errors[0].to_string();
    assert!(
        shown.contains("without WebAssembly plugins") && shown.contains("--features wasm-plugins"),
        "{shown}"
    );
    assert_eq!(
        errors[0].to_cohost().code,
        cohost_core::ErrorCode::ConfigInvalid
    );
    assert!(wasm::wasm_plugins(&dirs).is_empty());
}
