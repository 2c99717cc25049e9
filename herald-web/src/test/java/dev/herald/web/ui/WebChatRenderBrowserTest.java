package dev.herald.web.ui;

import static dev.herald.web.ui.WebChatBrowserTest.NODE_DIR;
import static dev.herald.web.ui.WebChatBrowserTest.SHOTS;
import static dev.herald.web.ui.WebChatBrowserTest.env;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.session.SessionEntry;
import dev.herald.testkit.browser.BrowserScript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web chat as a person sees it, in headless Chromium at a desktop size (1280x800) and a phone size
 * (390x844), against a real gateway, store and web server: rendered answers, conversation management, the
 * phone drawer, and the admin page on a phone. Screenshots go to {@code target/screenshots}.
 */
class WebChatRenderBrowserTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void desktop_answersRenderedSafely_copiedRegeneratedStopped_conversationsRenamedSearchedDeleted() throws Exception {
        BrowserAgent agent = new BrowserAgent();
        try (WebUiFixture fx = WebUiFixture.start(dir, agent);
                BrowserScript page = BrowserScript.start(NODE_DIR, "browser/render.mjs", env(fx))) {
            assertThat(page.awaitStep("empty-state", STEP).path("suggestions").toString()).contains("list my files", "show formatting");
            page.awaitStep("draft-rendered", STEP);
            JsonNode dom = page.awaitStep("rendered", STEP);
            assertThat(dom.path("h1").asText()).isEqualTo("Release notes");
            assertThat(dom.path("link").path("href").asText()).isEqualTo("https://docs.herald.invalid/guide");
            assertThat(dom.path("handlers").asInt()).isZero();
            assertThat(page.awaitStep("copied", STEP).path("code").asText()).isEqualTo("if (a < b) { System.out.println(\"hi\"); }");
            page.awaitStep("regenerated", STEP);
            assertThat(page.awaitStep("stopped", STEP).path("before").asBoolean()).isTrue();
            String first = page.awaitStep("renamed", STEP).path("conversation").asText();
            page.awaitStep("searched", STEP);
            String second = page.awaitStep("deleted", STEP).path("conversation").asText();
            page.awaitDone(STEP);

            assertThat(agent.count("show formatting")).as("regenerate asked again, as a new turn").isEqualTo(2);
            assertThat(fx.storage.sessions().find(fx.key(first)).map(SessionEntry::title)).contains("Release planning");
            SessionEntry deleted = fx.storage.sessions().find(fx.key(second)).orElseThrow();
            assertThat(deleted.hidden()).isTrue();
            assertThat(fx.storage.transcripts().load(deleted.sessionId())).as("the transcript is kept")
                    .anySatisfy(r -> assertThat(r.content()).isEqualTo("hello there"));
        }
        assertThat(Files.size(SHOTS.resolve("webchat-desktop.png"))).isGreaterThan(10_000);
    }

    @Test
    void phone_listIsADrawer_titleWhole_nothingOverflows_adminActionsReachable() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, demoAgent());
                BrowserScript page = BrowserScript.start(NODE_DIR, "browser/phone.mjs", env(fx))) {
            assertThat(page.awaitStep("closed", STEP).path("title").path("text").asText()).isEqualTo("New conversation");
            page.awaitStep("answer", STEP);
            page.awaitStep("drawer", STEP);
            assertThat(page.awaitStep("admin", STEP).path("scrolls").asBoolean()).isTrue();
            page.awaitDone(STEP);
        }
        for (String shot : new String[] {"webchat-phone.png", "webchat-phone-menu.png", "admin-phone.png"}) {
            assertThat(Files.size(SHOTS.resolve(shot))).as(shot).isGreaterThan(10_000);
        }
    }

    @Test
    void demoModel_showsAToolCallAnApprovalAndStreaming_labelledAsTheDemo() throws Exception {
        try (WebUiFixture fx = WebUiFixture.start(dir, demoAgent());
                BrowserScript page = BrowserScript.start(NODE_DIR, "browser/demo.mjs", env(fx))) {
            assertThat(page.awaitStep("tool", STEP).path("text").asText()).startsWith("[demo model] list_dir answered:")
                    .doesNotContain("`list_dir`");
            page.awaitStep("approved", STEP);
            page.awaitStep("streamed", STEP);
            page.awaitStep("formatting", STEP);
            page.awaitDone(STEP);
        }
        assertThat(Files.size(SHOTS.resolve("webchat-demo.png"))).isGreaterThan(10_000);
    }

    /** The built-in demo model in the real agent loop, with the real tools working in this test's folder. */
    private dev.herald.core.agent.Agent demoAgent() {
        return new dev.herald.agent.ModelAgent(new dev.herald.agent.demo.DemoModel(), dev.herald.agent.AgentSettings.DEFAULT,
                dev.herald.agent.tool.ToolRegistry.standard(dev.herald.agent.tool.ToolSettings.defaults(dir.resolve("workspaces"))));
    }
}
