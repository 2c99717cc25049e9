package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.agent.ToolOrigin;
import dev.herald.web.access.WebAccess;
import dev.herald.testkit.agent.ScriptedAgent;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A request carrying Herald's tool marker is refused on every route, loopback or not, before any handler runs. */
class ToolOriginFilterTest {
    @TempDir
    Path dir;

    @Test
    void everyRoute_requestWithTheToolMarker_is403JsonAndNothingRuns() {
        try (WebUiFixture fx = WebUiFixture.start(dir, new ScriptedAgent())) {
            assertThat(fx.get("/admin/api/status").statusCode()).as("without the marker").isEqualTo(200);

            for (String path : new String[] {"/health", "/", "/admin", "/admin/api/status", "/admin/api/sessions",
                    "/admin/api/transcript?key=webchat:dm:x", "/chat/api/conversations", "/metrics", "/no/such/route"}) {
                HttpResponse<String> r = fx.get(path, ToolOrigin.HEADER, ToolOrigin.TOKEN);
                assertThat(r.statusCode()).as(path).isEqualTo(403);
                assertThat(WebUiFixture.json(r).path("error").path("code").asText()).as(path).isEqualTo("tool_origin");
            }
            HttpResponse<String> send = fx.post("/chat/api/send", "{\"conversation\":\"c1\",\"clientId\":\"m1\",\"text\":\"hi\"}",
                    WebAccess.CSRF_HEADER, "1", ToolOrigin.HEADER, "some-other-herald");
            assertThat(send.statusCode()).isEqualTo(403);
            assertThat(fx.gateway.status().activeTurns()).isZero();
            assertThat(WebUiFixture.json(fx.get("/chat/api/conversations")).toString()).doesNotContain("c1");
        }
    }
}
