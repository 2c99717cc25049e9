package dev.herald.platforms.email;

import static dev.herald.platforms.GatewayFixture.WAIT;
import static dev.herald.platforms.email.EmailRig.ALICE;
import static dev.herald.platforms.email.EmailRig.mail;
import static dev.herald.platforms.email.EmailRig.newId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.herald.platforms.GatewayFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A server without IMAP IDLE (Dovecot told to advertise none): Herald checks the folder every poll_seconds instead. */
class EmailPollingTest {
    static EmailRig rig;

    @BeforeAll
    static void servers() throws Exception {
        rig = new EmailRig(false);
        rig.tweak = s -> s.withPollSeconds(1);
    }

    @AfterAll
    static void stopServers() throws Exception {
        rig.close();
    }

    @RegisterExtension
    final GatewayFixture herald = rig.herald(ALICE);

    @Test
    void withoutIdle_newMailIsFoundByPolling_andAnsweredOnce() throws Exception {
        herald.start();
        String first = newId();
        String second = newId();
        rig.dovecot.append(mail(ALICE, "one", first, "first by polling"));
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(first)));
        rig.dovecot.append(mail(ALICE, "two", second, "second by polling"));
        await().atMost(WAIT).until(() -> rig.smtp.to(ALICE).stream().anyMatch(m -> m.answers(second)));

        assertThat(herald.agent.messages()).containsExactly("first by polling", "second by polling");
        assertThat(rig.smtp.to(ALICE)).hasSize(2);
        assertThat(herald.current).isInstanceOf(EmailAdapter.class);
    }
}
