package dev.herald.platforms.matrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.ConfigException;
import dev.herald.platforms.common.Answers;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The section's rules (https, http only to loopback; a user id; a credential) and the HTML replies are made of. */
class MatrixSettingsAndHtmlTest {
    private static final ConfigChecks CHECK = new ConfigChecks("platforms.matrix", new ConfigChecks.Origins() {
        @Override
        public String where(String path) {
            return "config.yaml";
        }

        @Override
        public String origin(String path) {
            return "";
        }
    });
    private static final Set<String> ALLOWED_TAGS = Set.of("strong", "em", "del", "code", "pre", "a", "h1", "h2", "h3", "h4", "h5", "h6",
            "blockquote", "hr", "br");

    @Test
    void homeserver_mustBeHttps_orHttpToALoopbackHost() {
        assertThatCode(() -> MatrixSettings.of("https://matrix.example.org", "@herald:example.org", "t").validate(CHECK)).doesNotThrowAnyException();
        assertThatCode(() -> MatrixSettings.of("http://127.0.0.1:8008", "@herald:example.org", "t").validate(CHECK)).doesNotThrowAnyException();
        assertThatCode(() -> MatrixSettings.of("http://localhost:8008/", "@herald:example.org", "t").validate(CHECK)).doesNotThrowAnyException();
        assertThatThrownBy(() -> MatrixSettings.of("http://matrix.example.org", "@herald:example.org", "t").validate(CHECK))
                .isInstanceOf(ConfigException.class).hasMessageContaining("platforms.matrix.homeserver must be an https URL");
    }

    @Test
    void anEnabledSection_needsAUserIdAndACredential_andNeverPrintsThem() {
        assertThatThrownBy(() -> MatrixSettings.of("https://m.example.org", "herald", "t").validate(CHECK))
                .hasMessageContaining("platforms.matrix.user_id must be the bot account's full user id");
        assertThatThrownBy(() -> MatrixSettings.of("https://m.example.org", "@herald:example.org", null).validate(CHECK))
                .hasMessageContaining("platforms.matrix.access_token or platforms.matrix.password is required");
        assertThatThrownBy(() -> MatrixSettings.of("https://m.example.org", "@herald:example.org", "t").withRooms(List.of("general"))
                .validate(CHECK)).hasMessageContaining("platforms.matrix.rooms must list room ids");
        MatrixSettings s = MatrixSettings.of("https://m.example.org", "@herald:example.org", "syt_very_secret").withPassword("hunter2", null);
        assertThat(s.toString()).doesNotContain("syt_very_secret", "hunter2");
    }

    @Test
    void everyConstruct_rendersToTheAllowedTagsOnly_balanced() {
        String html = MatrixHtml.render(Answers.everyConstruct());

        assertThat(html).contains("<strong>2.0</strong>", "<del>no</del>", "<a href=\"https://docs.herald.invalid/guide?a=1&amp;b=2\">",
                "<blockquote>", "<pre><code class=\"language-java\">", "<h1>");
        assertThat(tags(html)).isSubsetOf(ALLOWED_TAGS);
        for (String tag : List.of("strong", "em", "del", "code", "pre", "a", "blockquote", "h1")) {
            assertThat(count(html, "<" + tag + "[ >]")).as(tag + " balanced").isEqualTo(count(html, "</" + tag + ">"));
        }
    }

    @Test
    void rawHtmlAndScriptLinks_inTheAnswer_areShownAsText_neverPassedThrough() {
        String html = MatrixHtml.render("<script>alert(1)</script>\n\n[click](javascript:alert(1)) <b onclick=x>hi</b> [ok](https://a.example/\"x)");

        assertThat(tags(html)).isSubsetOf(ALLOWED_TAGS);
        assertThat(html).doesNotContain("<script", "<b ", "javascript:").contains("&lt;script&gt;", "<a href=\"https://a.example/&quot;x\">ok</a>");
    }

    private static Set<String> tags(String html) {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("</?([a-zA-Z0-9]+)").matcher(html);
        while (m.find()) {
            out.add(m.group(1).toLowerCase());
        }
        return out;
    }

    private static long count(String html, String regex) {
        return Pattern.compile(regex).matcher(html).results().count();
    }
}
