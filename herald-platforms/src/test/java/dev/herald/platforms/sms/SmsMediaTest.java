package dev.herald.platforms.sms;

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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * MMS both ways: a photo someone sends is stored as its message and media SID and fetched from Twilio's API host with
 * the credentials (following Twilio's redirect to its media host); a media URL anywhere else is never fetched. A file
 * the agent sends goes out as a {@code MediaUrl} on {@code public_url}, which Twilio fetches from Herald; without
 * {@code public_url} the answer says the file was not sent.
 */
class SmsMediaTest {
    static final String ALICE = SmsWebhookTest.ALICE;
    static final String PHOTO = String.format("ME%032x", 0xfeed);
    static final byte[] JPEG = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0};

    @TempDir
    Path workspace;

    final FakeTwilio twilio = new FakeTwilio();
    @RegisterExtension
    final GatewayFixture herald = twilio.herald(ALICE);

    private TurnRecord turnOf(String text) {
        return herald.turns().stream().filter(t -> t.text().equals(text)).findFirst().orElseThrow();
    }

    @Test
    void anMmsPhoto_isStoredByItsSids_andFetchedFromTwiliosApiHost_withTheCredentials() throws Exception {
        twilio.media.put(PHOTO, new Object[] {JPEG, "image/jpeg"});
        herald.start();

        twilio.text(twilio.mms(ALICE, 40, "what is this?", PHOTO));
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);

        String ref = String.format("MM%032x", 40) + "/" + PHOTO;
        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: what is this?\n[attachment: photo (image/jpeg), ref " + ref + "]");
        MessageEvent.MediaRef media = turnOf("what is this?").attachments().getFirst();
        var fetched = twilio.fetcher().fetch(media, 1024 * 1024);
        assertThat(fetched.bytes()).isEqualTo(JPEG);
        assertThat(fetched.mimeType()).isEqualTo("image/jpeg");
        assertThat(twilio.mediaRequests).containsExactly("/2010-04-01/Accounts/" + FakeTwilio.ACCOUNT_SID + "/Messages/"
                + String.format("MM%032x", 40) + "/Media/" + PHOTO + " with credentials");
        assertThatThrownBy(() -> twilio.fetcher().fetch(media, 4)).isInstanceOf(IOException.class).hasMessageContaining("4-byte limit");
    }

    @Test
    void aMediaUrlOnAnotherHost_isLeftOut_andAForgedReference_isNotFetched() throws Exception {
        twilio.media.put(PHOTO, new Object[] {JPEG, "image/jpeg"});
        herald.start();
        Map<String, String> form = twilio.mms(ALICE, 41, "look", PHOTO);
        form.put("MediaUrl0", "http://localhost:" + URI.create(twilio.apiBase()).getPort() + "/2010-04-01/Accounts/" + FakeTwilio.ACCOUNT_SID
                + "/Messages/" + String.format("MM%032x", 41) + "/Media/" + PHOTO);

        twilio.text(form);
        await().atMost(WAIT).until(() -> twilio.sentTo(ALICE).size() == 1);

        assertThat(twilio.sentTo(ALICE).getFirst().body()).isEqualTo("echo: look");
        assertThat(turnOf("look").attachments()).isEmpty();
        assertThatThrownBy(() -> twilio.fetcher().fetch(new MessageEvent.MediaRef("photo", "../../Accounts/x", null), 1024))
                .isInstanceOf(IOException.class).hasMessageContaining("not a Twilio message and media SID");
        assertThat(twilio.mediaRequests).isEmpty();
    }

    @Test
    void anAgentsFile_goesOutAsAMediaUrlOnThePublicUrl_whichTwilioFetches() throws Exception {
        twilio.settings = twilio.settings.withPublicUrl(twilio.heraldBase());
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 1, 2, 3};
        herald.start();
        herald.agent.replyWithFiles("Here is the chart.", file("chart.png", png, "image/png", "the **chart**"));

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(42), "draw it"));
        await().atMost(WAIT).until(() -> turnOf("draw it").state() == TurnState.DELIVERED);

        var sent = twilio.sentTo(ALICE);
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).body()).isEqualTo("Here is the chart.");
        assertThat(sent.get(1).body()).isEqualTo("the chart");
        String url = sent.get(1).mediaUrls().getFirst();
        assertThat(url).startsWith(twilio.heraldBase() + "/platforms/sms/files/" + turnOf("draw it").id() + "-0-");
        FakeTwilio.Fetched got = sent.get(1).fetched().getFirst();
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.bytes()).isEqualTo(png);
        assertThat(got.contentType()).isEqualTo("image/png");

        HttpClient c = HttpClient.newHttpClient();
        String forged = url.substring(0, url.length() - 4) + (url.endsWith("AAAA") ? "BBBB" : "AAAA");
        String otherFile = url.replace("-0-", "-1-");
        for (String u : new String[] {forged, otherFile, twilio.heraldBase() + "/platforms/sms/files/1-0-9999999999-x"}) {
            var r = c.send(HttpRequest.newBuilder(URI.create(u)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as(u).isEqualTo(404);
        }
        c.close();
    }

    @Test
    void withoutPublicUrl_anAgentsFile_isALineSayingItWasNotSent() throws Exception {
        herald.start();
        herald.agent.replyWithFiles("Here is the summary.", file("summary.pdf", "%PDF-1.4".getBytes(StandardCharsets.UTF_8), "application/pdf", null));

        twilio.text(FakeTwilio.sms(ALICE, FakeTwilio.sid(43), "summarize"));
        await().atMost(WAIT).until(() -> turnOf("summarize").state() == TurnState.DELIVERED);

        assertThat(twilio.sentTo(ALICE)).extracting(FakeTwilio.Sent::body)
                .containsExactly("Here is the summary.", "(The file summary.pdf was not sent: sms does not take files from Herald.)");
        assertThat(twilio.sentTo(ALICE)).allSatisfy(s -> assertThat(s.mediaUrls()).isEmpty());
    }

    private OutboundFile file(String name, byte[] bytes, String type, String caption) throws Exception {
        Path p = workspace.resolve(name);
        Files.write(p, bytes);
        return new OutboundFile(p.toRealPath().toString(), name, type, bytes.length, caption);
    }
}
