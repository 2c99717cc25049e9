package dev.herald.platforms.email;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.email.EmailRig.ALICE;
import static dev.herald.platforms.email.EmailRig.BOT;
import static dev.herald.platforms.email.EmailRig.mail;
import static dev.herald.platforms.email.EmailRig.newId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.agent.TurnRequest;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.turn.TurnState;
import dev.herald.platforms.GatewayFixture;
import jakarta.mail.Multipart;
import jakarta.mail.Part;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A conversation by mail against a real Dovecot: alice's mail is placed in the bot's INBOX with IMAP APPEND, Herald reads
 * it (IDLE), and its reply reaches the SMTP sink threaded under her mail, with a Re: subject and both a text and an HTML
 * part; a follow-up in the thread is the same session; quoted history never reaches the model; the mail is \Seen once
 * stored; files go both ways.
 */
class EmailConversationTest {
    static EmailRig rig;

    @BeforeAll
    static void servers() throws Exception {
        rig = new EmailRig();
    }

    @AfterAll
    static void stopServers() throws Exception {
        rig.close();
    }

    @RegisterExtension
    final GatewayFixture herald = rig.herald(ALICE);

    @BeforeEach
    void freshSink() {
        rig.smtp.mails.clear();
        rig.tweak = s -> s;
    }

    @TempDir
    Path workspace;

    @Test
    void mail_isAnsweredInItsThread_withReSubject_threadingHeaders_andTextAndHtmlParts() throws Exception {
        herald.start();
        herald.agent.reply("Sure: **tomorrow** at 10.\n\n- bring the notes");
        String id = newId();
        long uid = rig.dovecot.append(mail(ALICE, "Meeting", id, "Can we meet tomorrow?"));

        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(id)));
        SmtpSink.Mail reply = rig.smtp.to(ALICE).stream().filter(m -> m.answers(id)).findFirst().orElseThrow();
        assertThat(reply.message().getSubject()).isEqualTo("Re: Meeting");
        assertThat(reply.header("References")).isEqualTo("<" + id + ">");
        assertThat(reply.header("From")).isEqualTo(BOT);
        assertThat(reply.header("To")).isEqualTo(ALICE);
        assertThat(reply.header("Auto-Submitted")).isEqualTo("auto-replied");
        assertThat(reply.header("Message-ID")).startsWith("<herald.").endsWith("@herald.test>");
        assertThat(reply.message().isMimeType("multipart/alternative")).isTrue();
        Multipart alt = (Multipart) reply.message().getContent();
        assertThat(alt.getCount()).isEqualTo(2);
        assertThat(alt.getBodyPart(0).isMimeType("text/plain")).isTrue();
        assertThat((String) alt.getBodyPart(0).getContent()).contains("Sure: **tomorrow** at 10.");
        assertThat(alt.getBodyPart(1).isMimeType("text/html")).isTrue();
        assertThat((String) alt.getBodyPart(1).getContent()).contains("<strong>tomorrow</strong>").contains("<li>bring the notes</li>");
        assertThat(herald.agent.messages()).containsExactly("Can we meet tomorrow?");
        await().atMost(WAIT).until(() -> rig.dovecot.flags(uid).contains("\\Seen"));
    }

    @Test
    void aReplyInTheThread_landsInTheSameSession_andItsQuotedHistoryNeverReachesTheModel() throws Exception {
        herald.start();
        String first = newId();
        rig.dovecot.append(mail(ALICE, "Plans", first, "What are the plans?"));
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(first)));
        String ours = rig.smtp.to(ALICE).stream().filter(m -> m.answers(first)).findFirst().orElseThrow()
                .header("Message-ID");

        String second = newId();
        rig.dovecot.append(EmailRig.threaded(ALICE, "Re: Plans", second, ours.substring(1, ours.length() - 1), "<" + first + "> " + ours, """
                Sounds good, thanks!

                On Mon, 7 Dec 2026 at 10:01, Herald <herald@herald.test> wrote:
                > echo: What are the plans?
                >
                > more quoted text

                --\s
                Alice Example
                +1 555 0100
                """));
        herald.agent.awaitCalls(2, WAIT);

        TurnRequest a = herald.agent.calls().get(0);
        TurnRequest b = herald.agent.calls().get(1);
        assertThat(b.userMessage()).as("quoted history and signature stripped").isEqualTo("Sounds good, thanks!");
        assertThat(b.sessionKey()).as("one session per thread").isEqualTo(a.sessionKey());
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(second)));
        SmtpSink.Mail reply = rig.smtp.to(ALICE).stream().filter(m -> m.answers(second)).findFirst().orElseThrow();
        assertThat(reply.message().getSubject()).as("no Re: Re:").isEqualTo("Re: Plans");
        assertThat(reply.header("References")).startsWith("<" + first + ">").endsWith("<" + second + ">");

        String other = newId();
        rig.dovecot.append(mail(ALICE, "Another topic", other, "Something else"));
        herald.agent.awaitCalls(3, WAIT);
        assertThat(herald.agent.calls().get(2).sessionKey()).as("a new thread is a new session").isNotEqualTo(a.sessionKey());
    }

    @Test
    void automaticMail_listMail_andBounces_areNeverAnswered_andTheNextMailIs() throws Exception {
        herald.start();
        rig.dovecot.append(mail(ALICE, "Out of office", newId(), "I am away.", "Auto-Submitted: auto-replied"));
        rig.dovecot.append(mail(ALICE, "[list] news", newId(), "List traffic", "List-Id: <news.example.org>"));
        rig.dovecot.append(mail(ALICE, "Digest", newId(), "Bulk", "Precedence: bulk"));
        long bounce = rig.dovecot.append(mail("MAILER-DAEMON@example.org", "Undelivered Mail", newId(), "It bounced."));
        rig.dovecot.append(mail(ALICE, "Question", newId(), "Real question"));

        await().atMost(WAIT).until(() -> herald.turns().stream().anyMatch(t -> t.state() == TurnState.DELIVERED));
        assertThat(herald.agent.messages()).containsExactly("Real question");
        assertThat(rig.smtp.to(ALICE)).extracting(m -> m.message().getSubject()).containsExactly("Re: Question");
        assertThat(rig.dovecot.flags(bounce)).as("skipped mail stays unread for a person to see").doesNotContain("\\Seen");
        assertThat(rig.logLines()).anyMatch(l -> l.contains("not answered: it was sent automatically (Auto-Submitted: auto-replied)"))
                .anyMatch(l -> l.contains("not answered: it comes from a mailing list"))
                .anyMatch(l -> l.contains("not answered: it is bulk mail"))
                .anyMatch(l -> l.contains("from mailer-daemon@example.org not answered"));
    }

    @Test
    void mailFromAnUnknownSender_isRefused_withoutAReply() throws Exception {
        herald.start();
        String mallorys = newId();
        String alices = newId();
        long uid = rig.dovecot.append(mail("mallory@evil.test", "Hi", mallorys, "Let me in"));
        rig.dovecot.append(mail(ALICE, "Hi", alices, "I am allowed"));

        herald.agent.awaitCalls(1, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 1);
        assertThat(herald.agent.messages()).containsExactly("I am allowed");
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> rig.smtp.to("mallory@evil.test").isEmpty());
        assertThat(rig.dovecot.flags(uid)).as("handled (refused) once, not offered again").contains("\\Seen");
        assertThat(herald.storage.platformState().all(EmailAdapter.PLATFORM)).as("unwanted mail leaves no row in the store")
                .containsKey(EmailState.THREAD + alices).doesNotContainKey(EmailState.THREAD + mallorys);
    }

    @Test
    void theSameMessageId_deliveredTwice_isAnsweredOnce() throws Exception {
        herald.start();
        String id = newId();
        String raw = mail(ALICE, "Twice", id, "Only once please");
        rig.dovecot.append(raw);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 1);
        rig.dovecot.append(raw); // a redelivery: same Message-ID, new UID
        rig.dovecot.append(mail(ALICE, "After", newId(), "next one"));

        herald.agent.awaitCalls(2, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 2);
        assertThat(herald.agent.messages()).containsExactly("Only once please", "next one");
        assertThat(rig.smtp.to(ALICE).stream().filter(m -> m.answers(id))).hasSize(1);
    }

    @Test
    void hugeMailWithoutText_andBrokenMime_areSkippedWithALogLine_andTheNextMailIsAnswered() throws Exception {
        herald.start();
        String big = "From: " + ALICE + "\r\nTo: " + BOT + "\r\nSubject: blob\r\nMessage-ID: <" + newId() + ">\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n"
                + ("QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\r\n").repeat(70_000);
        assertThat(big.length()).isGreaterThan(5_000_000);
        rig.dovecot.append(big);
        rig.dovecot.append("From: " + ALICE + "\r\nTo: " + BOT + "\r\nSubject: broken\r\nMessage-ID: <" + newId() + ">\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/mixed; boundary=\"zzz\"\r\n\r\nno boundary ever appears here\r\n");
        rig.dovecot.append(mail(ALICE, "fine", newId(), "Am I answered?"));

        herald.agent.awaitCalls(1, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 1);
        assertThat(herald.agent.messages()).containsExactly("Am I answered?");
        assertThat(rig.logLines()).anyMatch(l -> l.startsWith("email - mail UID") && l.contains("not answered: it has no text part (5.")
                        && l.contains("application/octet-stream"))
                .anyMatch(l -> l.startsWith("email - mail UID") && l.contains("not answered: it could not be read as MIME (ParseException: "
                        + "Missing start boundary)"));
    }

    @Test
    void anAttachmentIn_isFetchedByTheAgent_andAFileOut_isAttachedToTheReply() throws Exception {
        herald.start();
        byte[] pdf = "%PDF-1.4 alice's report".getBytes(StandardCharsets.UTF_8);
        Path out = workspace.resolve("summary.txt");
        Files.writeString(out, "the summary");
        herald.agent.replyWithFiles("Here it is.", new OutboundFile(out.toRealPath().toString(), "summary.txt", "text/plain", 11, null));
        String id = newId();
        rig.dovecot.append("From: Alice <" + ALICE + ">\r\nTo: " + BOT + "\r\nSubject: report\r\nMessage-ID: <" + id + ">\r\nMIME-Version: 1.0\r\n"
                + "Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease summarise.\r\n"
                + "--b1\r\nContent-Type: application/pdf; name=\"report.pdf\"\r\nContent-Disposition: attachment; filename=\"report.pdf\"\r\n"
                + "Content-Transfer-Encoding: base64\r\n\r\n" + java.util.Base64.getMimeEncoder().encodeToString(pdf) + "\r\n--b1--\r\n");

        TurnRequest call = herald.agent.awaitCalls(1, WAIT).getFirst();
        assertThat(call.userMessage()).isEqualTo("Please summarise.");
        assertThat(call.attachments()).singleElement().satisfies(a -> {
            assertThat(a.name()).isEqualTo("report.pdf");
            assertThat(a.mimeType()).isEqualTo("application/pdf");
            assertThat(((EmailAdapter) herald.current).fetch(a, 1_000_000).bytes()).as("fetched again from the server").isEqualTo(pdf);
        });
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 2);
        SmtpSink.Mail withFile = rig.smtp.to(ALICE).get(1);
        assertThat(withFile.header("In-Reply-To")).isEqualTo("<" + id + ">");
        Multipart mixed = (Multipart) withFile.message().getContent();
        Part file = mixed.getBodyPart(1);
        assertThat(file.getFileName()).isEqualTo("summary.txt");
        assertThat(new String(file.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("the summary");
    }

    @Test
    void withRequireAuthenticationResults_onlyMailTheReceivingServerVouchesFor_isAnswered() throws Exception {
        rig.tweak = s -> s.withRequireAuthenticationResults(true);
        herald.start();
        rig.dovecot.append(mail(ALICE, "no verdict", newId(), "From alone"));
        rig.dovecot.append(mail(ALICE, "failed", newId(), "DMARC failed", "Authentication-Results: mx.herald.test; dmarc=fail header.from=example.org"));
        rig.dovecot.append(mail(ALICE, "forged below", newId(), "a pass written by the sender, under the server's fail",
                "Authentication-Results: mx.herald.test; dkim=none; dmarc=fail header.from=example.org",
                "Authentication-Results: mx.evil.test; dmarc=pass header.from=example.org"));
        rig.dovecot.append(mail(ALICE, "other domain", newId(), "DKIM of another domain",
                "Authentication-Results: mx.herald.test; dkim=pass header.d=evil.test; dmarc=none"));
        rig.dovecot.append(mail(ALICE, "real", newId(), "verified", "Authentication-Results: mx.herald.test (amavis); "
                + "dkim=pass (2048-bit key) header.d=example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=reject) header.from=example.org"));

        herald.agent.awaitCalls(1, WAIT);
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).size() == 1);
        assertThat(herald.agent.messages()).containsExactly("verified");
        assertThat(rig.logLines().stream().filter(l -> l.contains("the sender is not authenticated"))).hasSize(4);
    }
}
