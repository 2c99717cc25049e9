package dev.herald.platforms.teams;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files both ways: an image a person pastes is stored as a reference to its contentUrl and fetched with the bot's token
 * only from a serviceUrl host; a OneDrive/SharePoint file only from {@code file_hosts} and without the token; the
 * agent's image goes out inline as a data URL, another file as a line naming it.
 */
class TeamsMediaTest {
    static final String ALICE = TeamsWebhookTest.ALICE;
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};

    @TempDir
    Path workspace;

    final FakeTeams teams = new FakeTeams();
    @RegisterExtension
    final GatewayFixture herald = teams.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void aPastedImage_isFetchedFromTheConnectorWithTheBotsToken_andOtherHostsAreRefusedWithoutARequest() throws Exception {
        teams.attachments.put("0-eus-d1-abc", PNG);
        herald.start();
        var activity = teams.personal(ALICE, "1700000000100", "what is this?");
        activity.putArray("attachments").addObject().put("contentType", "image/png")
                .put("contentUrl", teams.serviceUrl() + "v3/attachments/0-eus-d1-abc/views/original");
        activity.withArray("attachments").addObject().put("contentType", "text/html").put("content", "<p>what is this?</p>");

        teams.post(activity.toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);
        MessageEvent.MediaRef ref = turnOf("what is this?").attachments().getFirst();
        assertThat(turnOf("what is this?").attachments()).as("the HTML copy is not a file").hasSize(1);
        assertThat(ref.kind()).isEqualTo("photo");
        var fetched = teams.fetcher().fetch(ref, 1024);
        assertThat(fetched.bytes()).isEqualTo(PNG);
        assertThat(teams.attachmentDownloads).singleElement().satisfies(d -> assertThat(d).startsWith("0-eus-d1-abc auth=Bearer "
                + FakeTeams.BOT_TOKEN_PREFIX));
        assertThatThrownBy(() -> teams.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("over the 4-byte limit");

        var elsewhere = new MessageEvent.MediaRef("photo", "c:http://localhost:" + teams.port() + "/amer/v3/attachments/0-eus-d1-abc/views/original",
                "image/png");
        assertThatThrownBy(() -> teams.fetcher().fetch(elsewhere, 1024)).isInstanceOf(IOException.class)
                .hasMessageContaining("not on platforms.teams.service_url_hosts");
        var metadata = new MessageEvent.MediaRef("document", "d:https://169.254.169.254/latest/meta-data/", null);
        assertThatThrownBy(() -> teams.fetcher().fetch(metadata, 1024)).isInstanceOf(IOException.class)
                .hasMessageContaining("not on platforms.teams.file_hosts");
        var plainSharePoint = new MessageEvent.MediaRef("document", "d:http://contoso.sharepoint.com/f.pdf", null);
        assertThatThrownBy(() -> teams.fetcher().fetch(plainSharePoint, 1024)).as("https only").isInstanceOf(IOException.class);
        assertThat(teams.attachmentDownloads).hasSize(2);
    }

    @Test
    void aOneDriveFile_isAReferenceToItsDownloadUrl() {
        herald.start();
        var activity = teams.personal(ALICE, "1700000000101", "read this");
        activity.putArray("attachments").addObject().put("contentType", "application/vnd.microsoft.teams.file.download.info")
                .put("name", "report.pdf").put("contentUrl", "https://contoso.sharepoint.com/personal/alice/Documents/report.pdf")
                .putObject("content").put("downloadUrl", "https://contoso.sharepoint.com/personal/alice/_layouts/15/download.aspx?UniqueId=1&tempauth=x")
                .put("uniqueId", "1").put("fileType", "pdf");

        teams.post(activity.toString());
        await().atMost(WAIT).until(() -> teams.messages().size() == 1);

        MessageEvent.MediaRef ref = turnOf("read this").attachments().getFirst();
        assertThat(ref.ref()).startsWith("d:https://contoso.sharepoint.com/");
        assertThat(ref.name()).isEqualTo("report.pdf");
        assertThat(ref.mimeType()).isEqualTo("application/pdf");
        assertThat(TeamsConnector.hostMatches("contoso.sharepoint.com", "*.sharepoint.com")).isTrue();
        assertThat(TeamsConnector.hostMatches("sharepoint.com.evil.net", "*.sharepoint.com")).isFalse();
    }

    @Test
    void theAgentsImage_goesOutInline_andAPdf_asALineNamingIt() throws Exception {
        byte[] pdf = "%PDF-1.4 the summary".getBytes(StandardCharsets.UTF_8);
        herald.start();
        herald.agent.replyWithFiles("Here is the chart.", file("chart.png", PNG, "image/png", "the chart"),
                file("summary.pdf", pdf, "application/pdf", null));

        teams.post(teams.personal(ALICE, "1700000000102", "chart it").toString());
        await().atMost(WAIT).until(() -> turnOf("chart it").state() == TurnState.DELIVERED);

        var sent = teams.messages();
        assertThat(sent).hasSize(3);
        assertThat(sent.get(0).text()).isEqualTo("Here is the chart.");
        var image = sent.get(1).body().path("attachments").path(0);
        assertThat(image.path("contentType").asText()).isEqualTo("image/png");
        assertThat(image.path("name").asText()).isEqualTo("chart.png");
        assertThat(image.path("contentUrl").asText()).isEqualTo("data:image/png;base64," + Base64.getEncoder().encodeToString(PNG));
        assertThat(sent.get(1).conversation()).isEqualTo(sent.get(0).conversation());
        assertThat(sent.get(2).text()).contains("summary.pdf").contains("Teams takes only images");
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
