package dev.herald.platforms.googlechat;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files: an uploaded attachment is stored as its {@code attachmentDataRef.resourceName} and fetched through the Chat
 * API's media download with the app's token, on {@code api_base} only; a file from the agent cannot be uploaded by an
 * app, so the chat gets a line naming it.
 */
class GoogleChatMediaTest {
    static final String ALICE = GoogleChatEventsTest.ALICE;
    static final String DM = GoogleChatEventsTest.DM;
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    static final String RESOURCE = "ClxzcGFjZXMvQUFBQWRtMVF4MmsvbWVzc2FnZXMvbTEueC9hdHRhY2htZW50cy9BVFRfMQ==";

    @TempDir
    Path workspace;

    final FakeGoogleChat chat = new FakeGoogleChat();
    @RegisterExtension
    final GatewayFixture herald = chat.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void anUploadedImage_isFetchedThroughTheMediaApi_withTheAppsToken_andNothingElseIsFetched() throws Exception {
        chat.media.put(RESOURCE, PNG);
        herald.start();
        ObjectNode event = FakeGoogleChat.dm(DM, ALICE, "img1.x", "what is this?");
        ((ObjectNode) event.path("message")).putArray("attachment").addObject().put("name", "spaces/" + DM + "/messages/img1.x/attachments/ATT_1")
                .put("contentName", "photo.png").put("contentType", "image/png").put("source", "UPLOADED_CONTENT")
                .putObject("attachmentDataRef").put("resourceName", RESOURCE);
        ((ObjectNode) event.path("message")).withArray("attachment").addObject().put("contentName", "notes.gdoc").put("source", "DRIVE_FILE")
                .putObject("driveDataRef").put("driveFileId", "1abc");

        chat.post(event.toString());
        await().atMost(WAIT).until(() -> chat.createdIn(DM).size() == 1);

        MessageEvent.MediaRef ref = turnOf("what is this?").attachments().getFirst();
        assertThat(turnOf("what is this?").attachments()).as("a Drive file is not downloadable by the app").hasSize(1);
        assertThat(ref.kind()).isEqualTo("photo");
        assertThat(ref.name()).isEqualTo("photo.png");
        var fetched = chat.fetcher().fetch(ref, 1024);
        assertThat(fetched.bytes()).isEqualTo(PNG);
        assertThat(chat.downloads).containsExactly(RESOURCE);
        assertThatThrownBy(() -> chat.fetcher().fetch(ref, 4)).isInstanceOf(IOException.class).hasMessageContaining("over the 4-byte limit");
        for (String bad : new String[] {"../../v1/spaces", "http://127.0.0.3/latest", "/etc/passwd", "a?b", "a#b"}) {
            assertThatThrownBy(() -> chat.fetcher().fetch(new MessageEvent.MediaRef("photo", bad, null), 1024)).isInstanceOf(IOException.class);
        }
        assertThat(chat.downloads).hasSize(2);
    }

    @Test
    void aFileFromTheAgent_becomesALineNamingIt() throws Exception {
        herald.start();
        Path p = workspace.resolve("chart.png");
        Files.write(p, PNG);
        herald.agent.replyWithFiles("Here is the chart.", new OutboundFile(p.toRealPath().toString(), "chart.png", "image/png", PNG.length, null));

        chat.post(FakeGoogleChat.dm(DM, ALICE, "file1.x", "chart it").toString());
        await().atMost(WAIT).until(() -> turnOf("chart it").state() == TurnState.DELIVERED);

        assertThat(chat.createdIn(DM)).extracting(FakeGoogleChat.Created::text)
                .containsExactly("Here is the chart.", "(The file chart.png was not sent: google_chat does not take files from Herald.)");
    }
}
