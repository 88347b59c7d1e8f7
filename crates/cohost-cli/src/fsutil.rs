//! Where the relay keeps its secrets, and fresh ones (atomic private
//! writes are `cohost_discovery::fsutil::atomic_write_private`).

use std::path::PathBuf;

/// cohost's config directory: `$XDG_CONFIG_HOME/cohost`, else `~/.config/cohost`.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|d| d.join("cohost"))
}

/// 32 random bytes from the OS, hex-encoded.
pub fn random_secret() -> std::io::Result<String> {
    let mut buf = [0u8; 32];
    getrandom::fill(&mut buf).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random() {
        assert_ne!(random_secret().unwrap(), random_secret().unwrap());
    }
}
