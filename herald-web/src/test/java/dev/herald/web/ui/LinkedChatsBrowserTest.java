package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.Account;
import dev.herald.core.account.Role;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.web.access.PasswordHash;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Linked chats in headless Chromium ({@code browser/links.mjs}): a code from /link entered in the pages links the chat, Unlink removes it. */
class LinkedChatsBrowserTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aCodeFromTheChat_linksItInThePages_andUnlinkRemovesIt_inChromium() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new BrowserAgent())) {
            fx.storage.accounts().create(new Account("ann", Role.ADMIN, PasswordHash.hash("ann-long-password"), false, Instant.now(), 0));
            String code = fx.identities.issueCode("telegram:100"); // what /link answered in ann's Telegram chat
            Map<String, String> env = new HashMap<>(WebChatBrowserTest.env(fx));
            env.put("HERALD_LINK_CODE", code);
            try (BrowserScript script = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/links.mjs", env)) {
                assertThat(script.awaitStep("refused", STEP).path("text").asText()).contains("not valid");
                script.awaitStep("linked", STEP);
                script.awaitStep("unlinked", STEP);
                script.awaitDone(STEP);
            }
            assertThat(fx.storage.identityLinks().links("ann")).isEmpty();
        }
    }
}
