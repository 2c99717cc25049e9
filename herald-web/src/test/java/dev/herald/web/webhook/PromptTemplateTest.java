package dev.herald.web.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.core.platform.ChatTarget;
import dev.herald.core.platform.Platform;
import org.junit.jupiter.api.Test;

/** Prompt templates and delivery targets, as the route configuration writes them. */
class PromptTemplateTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    @Test
    void render_fillsDottedPaths_indexesArrays_andWritesObjectsAsJson() throws Exception {
        JsonNode p = json("{\"repo\":{\"name\":\"herald\"},\"commits\":[{\"id\":\"a1\"},{\"id\":\"b2\"}],\"n\":3,\"ok\":true,\"who\":{\"a\":1}}");

        String out = PromptTemplate.render("{repo.name}: {commits.1.id} of {n} ({ok}) by {who}", p);

        assertThat(out).isEqualTo("herald: b2 of 3 (true) by {\"a\":1}");
    }

    @Test
    void render_leavesAPlaceholderWhosePathIsMissing_asWritten() throws Exception {
        assertThat(PromptTemplate.render("title: {pull_request.title}; {x.99999999999}", json("{\"x\":[]}")))
                .isEqualTo("title: {pull_request.title}; {x.99999999999}");
    }

    @Test
    void render_cutsAHugeRawPayload_andSaysSo() throws Exception {
        JsonNode p = json("{\"pad\":\"" + "z".repeat(PromptTemplate.RAW_LIMIT) + "\"}");

        String out = PromptTemplate.render("Event:\n{__raw__}", p);

        assertThat(out).startsWith("Event:\n{").contains("(payload cut at 16000 of ");
    }

    @Test
    void render_insertsValuesLiterally_evenWithDollarSignsAndBraces() throws Exception {
        assertThat(PromptTemplate.render("{t}", json("{\"t\":\"cost $5 {not.a.path}\"}"))).isEqualTo("cost $5 {not.a.path}");
    }

    @Test
    void delivery_parsesLogAndPlatformChatAndThread() {
        assertThat(Delivery.parse("log")).isInstanceOf(Delivery.Log.class);
        assertThat(Delivery.parse("telegram:123456")).isEqualTo(new Delivery.Forward(Platform.of("telegram"), ChatTarget.of("123456")));
        assertThat(Delivery.parse("slack:C01:1712000000.000100"))
                .isEqualTo(new Delivery.Forward(Platform.of("slack"), new ChatTarget("C01", "1712000000.000100")));
        assertThatThrownBy(() -> Delivery.parse("telegram")).hasMessageContaining("'log' or '<platform>:<chat_id>[:<thread_id>]'");
    }
}
