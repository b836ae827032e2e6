//! The initialize handshake names the product, `discord-manager`, at the version being built,
//! and offers tools, so an MCP client shows the right server to the owner.

use crate::support::Store;

pub async fn spec() {
    let store = Store::without_owner();
    let mcp = store.mcp().await;

    let info = mcp.server_info();

    assert_eq!(info.name, "discord-manager");
    assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
    let stderr = mcp.stop().await;
    assert_eq!(stderr, "", "a quiet session logs nothing");
}
