package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.testkit.browser.BrowserScript;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Web accounts in headless Chromium ({@code browser/accounts.mjs}): first admin, users panel, an invitation taken, a password changed, sign-in, sign out everywhere. */
class AccountsBrowserTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void firstAdmin_addsAUser_whoSignsInAndChats_untilSignedOutEverywhere_inChromium() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, new BrowserAgent());
                BrowserScript script = BrowserScript.start(WebChatBrowserTest.NODE_DIR, "browser/accounts.mjs", WebChatBrowserTest.env(fx))) {
            script.awaitStep("first-admin", STEP);
            script.awaitStep("user-added", STEP);
            JsonNode invited = script.awaitStep("invited", STEP);
            assertThat(invited.path("reused").asText()).contains("not valid");
            assertThat(invited.path("usage").asText()).as("cleo's usage in the users panel").startsWith("1 turn · ");
            script.awaitStep("password-changed", STEP);
            script.awaitStep("wrong-password", STEP);
            script.awaitStep("bob-chatted", STEP);
            assertThat(script.awaitStep("api-key", STEP).path("owner").asText()).isEqualTo("bob");
            script.awaitStep("signed-out", STEP);
            script.awaitDone(STEP);
            assertThat(fx.storage.accounts().find("bob").orElseThrow().sessionEpoch()).isEqualTo(1);
            assertThat(script.output()).doesNotContain("bob-long-password").doesNotContain("cleo-long-password")
                    .doesNotContain("cleo-newer-password");
            assertThat(fx.storage.accounts().find("cleo").orElseThrow().invited()).as("the invitation was taken").isFalse();
        }
    }
}
