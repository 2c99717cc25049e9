package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.core.account.IdentityLinks;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Chat identities linked to web accounts and their one-time codes, for every store. */
public abstract class IdentityLinksContract extends StorageContract {

    private IdentityLinks links() {
        return storage.identityLinks();
    }

    @Test
    void aLink_survivesAReopen_isOneAccountsOnly_andIsRemovedOnlyByItsAccount() {
        Instant at = clock.instant();
        assertThat(links().link("telegram:100", "ann", at)).isTrue();
        assertThat(links().link("discord:7", "ann", at)).isTrue();
        assertThat(links().link("telegram:100", "bob", at)).as("linked to ann already").isFalse();
        reopen();
        assertThat(links().accountOf("telegram:100")).contains("ann");
        assertThat(links().accountOf("telegram:999")).isEmpty();
        assertThat(links().links("ann")).extracting(IdentityLinks.Link::identity).containsExactly("discord:7", "telegram:100");
        assertThat(links().links("bob")).isEmpty();
        assertThat(links().links(null)).hasSize(2);
        assertThat(links().unlink("telegram:100", "bob")).as("bob removing ann's link").isFalse();
        assertThat(links().unlink("telegram:100", "ann")).isTrue();
        assertThat(links().unlink("discord:7", null)).as("an admin removes any").isTrue();
        reopen();
        assertThat(links().links(null)).isEmpty();
    }

    @Test
    void aCode_isTakenOnce_untilItExpires_andANewCodeOfTheIdentityReplacesTheOld() {
        Instant now = clock.instant();
        links().addCode("h1", "telegram:100", now.plus(Duration.ofMinutes(10)));
        links().addCode("h2", "telegram:100", now.plus(Duration.ofMinutes(10)));
        links().addCode("h3", "slack:U1", now.minusSeconds(1));
        reopen();
        assertThat(links().takeCode("h1", now)).as("replaced by h2").isEmpty();
        assertThat(links().takeCode("h3", now)).as("expired").isEmpty();
        assertThat(links().takeCode("h2", now)).contains("telegram:100");
        assertThat(links().takeCode("h2", now)).as("used").isEmpty();
    }

    @Test
    void aCodeTakenTwiceAtOnce_goesToOneTakerOnly() throws Exception {
        Instant now = clock.instant();
        for (int round = 0; round < 5; round++) {
            links().addCode("race" + round, "telegram:" + round, now.plus(Duration.ofMinutes(10)));
            String hash = "race" + round;
            java.util.List<Optional<String>> got = Together.run(4, i -> links().takeCode(hash, now));
            assertThat(got.stream().filter(Optional::isPresent).count()).as("round " + round).isEqualTo(1);
        }
    }
}
