package dev.herald.platforms.email;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.email.EmailRig.ALICE;
import static dev.herald.platforms.email.EmailRig.BOT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.core.platform.ChatType;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.GatewayFixture;
import dev.herald.testkit.fuzz.Fuzzer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Mail from a hostile or broken sender: reading headers and MIME, screening, HTML to text and quote stripping never throw
 * and make only well-formed results, and the running adapter survives a stream of mangled mails in a real mailbox and
 * still answers the next good one.
 */
@Tag("fuzz")
class EmailFuzzTest {
    static final List<String> CORPUS = List.of(
            EmailRig.threaded(ALICE, "Re: Plans", "m2@example.org", "m1@example.org", "<m0@example.org> <m1@example.org>",
                    "Yes.\n\nOn Mon, 7 Dec 2026 at 10:01, Herald <herald@herald.test> wrote:\n> earlier\n\n-- \nAlice"),
            "From: =?UTF-8?B?w4lsb2TDrWU=?= <alice@example.org>\r\nTo: herald@herald.test\r\nSubject: =?UTF-8?Q?caf=C3=A9?=\r\n"
                    + "Message-ID: <a1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n"
                    + "--alt\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=E9 =\r\nsoon\r\n"
                    + "--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>caf&eacute; <b>soon</b></p>\r\n--alt--\r\n",
            "From: alice@example.org\r\nTo: herald@herald.test\r\nSubject: html only\r\nMessage-ID: <h1@example.org>\r\n"
                    + "Authentication-Results: mx.herald.test; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=none) header.from=example.org\r\n"
                    + "Content-Type: text/html\r\n\r\n<html><head><style>p{}</style></head><body><div>New text &amp; more<br>line</div>"
                    + "<div class=\"gmail_quote\"><blockquote>old &lt;stuff&gt;</blockquote></div></body></html>\r\n",
            "From: Alice <alice@example.org>\r\nTo: herald@herald.test\r\nSubject: file\r\nMessage-ID: <f1@example.org>\r\n"
                    + "Content-Type: multipart/mixed; boundary=b1\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n"
                    + "--b1\r\nContent-Type: application/pdf; name=r.pdf\r\nContent-Disposition: attachment; filename*=UTF-8''r%C3%A9.pdf\r\n"
                    + "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b1\r\nContent-Type: message/rfc822\r\n\r\nFrom: x@y\r\nSubject: fwd\r\n\r\nold\r\n--b1--\r\n",
            "Return-Path: <>\r\nFrom: MAILER-DAEMON@example.org\r\nAuto-Submitted: auto-replied (vacation)\r\nPrecedence: junk\r\nList-Id: <l.example.org>\r\n"
                    + "Content-Type: multipart/report; report-type=delivery-status; boundary=r\r\n\r\n--r\r\n\r\nfailed\r\n--r--\r\n",
            "From: alice@example.org\r\nSubject: outlook\r\nReferences: <..bad..@x> <\\weird@y>\r\nIn-Reply-To: garbage\r\n\r\n"
                    + "Top post.\r\n\r\n-----Original Message-----\r\nFrom: Herald\r\nSent: today\r\n\r\nold text\r\n");

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

    @Test
    void mailReading_neverThrows_andEveryMailItReadsIsWellFormed() {
        Fuzzer.of("email mime", CORPUS, 3_000).run(input -> {
            // as UTF-8 with the sender believed, as Latin-1 bytes with Authentication-Results required
            for (MailReader.Read read : List.of(MailReader.read(input.getBytes(StandardCharsets.UTF_8), BOT, false),
                    MailReader.read(input.getBytes(StandardCharsets.ISO_8859_1), BOT, true))) {
                if (read instanceof MailReader.Mail m) {
                    wellFormed(m);
                } else {
                    assertThat(((MailReader.Skip) read).reason()).isNotBlank();
                }
            }
        }, t -> false);
    }

    @Test
    void quoteStripping_andHtmlText_neverThrow_andKeepOnlyWhatTheSenderWrote() {
        Fuzzer.of("email quotes", CORPUS, 6_000).run(input -> {
            String stripped = Quotes.strip(input);
            String read = input.length() > Quotes.MAX_CHARS ? input.substring(0, Quotes.MAX_CHARS) : input;
            Set<String> lines = new HashSet<>(Arrays.stream(read.replace("\r\n", "\n").replace('\r', '\n').split("\n", -1))
                    .map(String::stripTrailing).toList());
            assertThat(stripped.lines()).allMatch(lines::contains);
            assertThat(Html.text(input).lines()).allMatch(l -> l.equals(l.strip()));
        }, t -> false);
    }

    @Test
    void adapter_survivesMangledMail_andAnswersTheNextGoodOne() throws Exception {
        herald.start();
        try (Dovecot.Client imap = rig.dovecot.new Client()) {
            Fuzzer.wire("email wire", CORPUS, 30).run(input -> {
                try {
                    imap.literal("APPEND INBOX", input.getBytes(StandardCharsets.UTF_8));
                } catch (java.io.IOException refusedByDovecot) {
                    // not a mail Dovecot stores (empty, say): nothing reaches Herald
                }
            }, t -> false);
        }
        String id = EmailRig.newId();
        rig.dovecot.append(EmailRig.mail(ALICE, "still there?", id, "still there?"));

        await().atMost(WAIT.multipliedBy(2)).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(id)));
        assertThat(rig.smtp.to(ALICE).stream().filter(m -> m.answers(id))).as("answered once").hasSize(1);
        assertThat(herald.turns()).allSatisfy(t -> assertThat(t.source().userId()).isEqualTo(ALICE));
    }

    static void wellFormed(MailReader.Mail m) {
        assertThat(Addresses.plausible(m.from())).as("sender %s", m.from()).isTrue();
        assertThat(m.messageId()).isNotBlank().doesNotContain("<", ">", " ");
        assertThat(m.references()).isNotEmpty().endsWith(m.messageId());
        SessionSource source = new SessionSource(EmailAdapter.PLATFORM, m.from(), ChatType.DM, m.from(), m.fromName(), m.threadId(), null);
        assertThat(SessionKey.of(source)).as("its ids name a session").isNotNull();
        assertThat(m.text().isBlank() && m.attachments().isEmpty()).as("a mail carries text or files").isFalse();
        assertThat(m.subject()).doesNotContain("\n", "\r");
    }
}
