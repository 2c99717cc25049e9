package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.session.ResumeReason;
import dev.herald.core.session.SessionKey;
import dev.herald.testkit.browser.BrowserScript;
import dev.herald.web.chat.WebChatPlatform;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web chat and the admin page in headless Chromium (Playwright scripts in {@code src/test/node/browser}),
 * against a real gateway, store and web server in this JVM. Screenshots go to {@code target/screenshots}.
 * Needs {@code npm ci} in {@code src/test/node} and Debian's chromium ({@code .ci/run} installs both).
 */
class WebChatBrowserTest {
    static final Path MODULE = moduleDir();
    static final Path NODE_DIR = MODULE.resolve("src/test/node");
    static final Path SHOTS = MODULE.resolve("target/screenshots");
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void chatAndAdmin_streamToolApprovalThenClearResumeMarkAndUnsuspend_inChromium() throws Exception {
        BrowserAgent agent = new BrowserAgent();
        try (WebUiFixture fx = WebUiFixture.start(dir, agent)) {
            String conversation;
            try (BrowserScript chat = BrowserScript.start(NODE_DIR, "browser/chat.mjs", env(fx))) {
                JsonNode partial = chat.awaitStep("streamed-partial", STEP);
                assertThat(partial.path("partial").asText()).startsWith("Streaming this answer slowly").doesNotContain("word.");
                assertThat(chat.awaitStep("round-trip", STEP).path("answers").asInt()).isEqualTo(1);
                chat.awaitStep("tool-shown", STEP);
                chat.awaitStep("approved", STEP);
                conversation = chat.awaitStep("conversation", STEP).path("id").asText();
                chat.awaitStep("buttons", STEP);
                chat.awaitDone(STEP);
            }
            assertThat(agent.count("Tell me slowly how streaming works")).isEqualTo(1);
            assertThat(Files.size(SHOTS.resolve("webchat.png"))).isGreaterThan(10_000);

            SessionKey key = SessionKey.of(dev.herald.core.session.SessionSource.dm(WebChatPlatform.PLATFORM, conversation, "web"));
            assertThat(fx.storage.sessions().markResumePending(key, ResumeReason.RESTART_TIMEOUT)).isTrue();
            // a resumed turn's row, as the gateway writes it: the model's note, not something the user typed
            fx.storage.transcripts().append(fx.storage.sessions().find(key).orElseThrow().sessionId(), dev.herald.core.transcript.TranscriptRow.user(
                    dev.herald.core.continuity.RecoveryNotes.resumeNote(ResumeReason.RESTART_TIMEOUT, "", true), java.time.Instant.now()));
            Map<String, String> env = new java.util.HashMap<>(env(fx));
            env.put("HERALD_CONVERSATION", conversation);
            SessionKey purged = purgeable(fx, "purge-me-0815");
            env.put("HERALD_PURGE", "purge-me-0815");
            try (BrowserScript admin = BrowserScript.start(NODE_DIR, "browser/admin.mjs", env)) {
                admin.awaitStep("unreachable-then-back", STEP);
                assertThat(admin.awaitStep("listed", STEP).path("text").asText()).contains("restart_timeout");
                assertThat(admin.awaitStep("transcript", STEP).path("event").asText()).contains("turn resumed");
                JsonNode downloaded = admin.awaitStep("downloaded", STEP);
                assertThat(downloaded.path("name").asText()).startsWith("herald-agent_main_webchat_dm_").endsWith(".md");
                assertThat(downloaded.path("markdown").asText()).startsWith("# Herald conversation: " + key.value() + "\n")
                        .contains("## " + key.value() + " · session " + fx.storage.sessions().find(key).orElseThrow().sessionId());
                admin.awaitStep("cleared", STEP);
                admin.awaitStep("unsuspended", STEP);
                assertThat(admin.awaitStep("purged", STEP).path("dialog").asText()).contains("purge-me-0815", "deleted for good");
                admin.awaitDone(STEP);
            }
            assertThat(fx.storage.sessions().find(purged)).isEmpty();
            assertThat(fx.storage.sessions().find(key).orElseThrow().resumePending()).isFalse();
            assertThat(fx.storage.sessions().find(key).orElseThrow().suspended()).isFalse();
            assertThat(Files.size(SHOTS.resolve("admin.png"))).isGreaterThan(10_000);
        }
    }

    @Test
    void keySet_pageAsksForTheKeyOnce_refusesWithoutIt_andSetsAStrictHttpOnlyCookie() throws Exception {
        String key = "sk-browser-test-key-0815";
        try (WebUiFixture fx = WebUiFixture.withKey(dir, new BrowserAgent(), key);
                BrowserScript login = BrowserScript.start(NODE_DIR, "browser/login.mjs", withKey(env(fx), key))) {
            assertThat(login.awaitStep("refused", STEP).path("status").asInt()).isEqualTo(401);
            login.awaitStep("wrong-key", STEP);
            login.awaitStep("logged-in", STEP);
            login.awaitStep("chatted", STEP);
            login.awaitDone(STEP);
            assertThat(login.output()).doesNotContain(key);
        }
    }

    /** A second web chat conversation with one message, for the admin page's Purge. */
    private static SessionKey purgeable(WebUiFixture fx, String conversation) {
        dev.herald.core.session.SessionSource source = dev.herald.core.session.SessionSource.dm(WebChatPlatform.PLATFORM, conversation, "web");
        SessionKey key = SessionKey.of(source);
        String sessionId = fx.storage.sessions().getOrCreate(key, source).sessionId();
        fx.storage.transcripts().append(sessionId, dev.herald.core.transcript.TranscriptRow.user("to be purged", java.time.Instant.now()));
        return key;
    }

    static Map<String, String> env(WebUiFixture fx) {
        return Map.of("HERALD_URL", fx.baseUrl(), "HERALD_SHOTS", SHOTS.toString());
    }

    private static Map<String, String> withKey(Map<String, String> env, String key) {
        Map<String, String> out = new java.util.HashMap<>(env);
        out.put("HERALD_KEY", key);
        return out;
    }

    static Path moduleDir() {
        String basedir = System.getProperty("basedir");
        Path d = Path.of(basedir != null ? basedir : System.getProperty("user.dir"));
        return Files.isDirectory(d.resolve("src/test/node")) ? d : d.resolve("herald-web");
    }
}
