package dev.herald.core.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Linking chat identities to web accounts: codes work once and for ten minutes, and memory follows the link. */
class IdentitiesTest {
    /** A clock the test moves. */
    static final class Hands extends Clock {
        Instant now = Instant.parse("2026-12-06T10:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    final Hands clock = new Hands();
    final Identities identities = Identities.inMemory(clock);

    @Test
    void aCode_linksTheIdentityThatAskedForIt_once_andNotAfterTenMinutes() {
        String code = identities.issueCode("telegram:100");
        assertThat(code).matches("[A-Z2-9]{4}-[A-Z2-9]{4}");
        assertThat(identities.redeem("ann", "nope")).isInstanceOf(Identities.Redeemed.Unknown.class);
        assertThat(identities.redeem("ann", " " + code.toLowerCase().replace("-", " ") + " "))
                .isEqualTo(new Identities.Redeemed.Linked("telegram:100"));
        assertThat(identities.redeem("ann", code)).as("used").isInstanceOf(Identities.Redeemed.Unknown.class);
        assertThat(identities.account("telegram:100")).contains("ann");

        String late = identities.issueCode("discord:7");
        clock.now = clock.now.plus(Identities.CODE_TTL);
        assertThat(identities.redeem("ann", late)).as("expired").isInstanceOf(Identities.Redeemed.Unknown.class);
        assertThat(identities.account("discord:7")).isEmpty();
    }

    @Test
    void aNewCode_replacesTheIdentitysEarlierOne_andALinkedIdentityIsNotTakenByAnotherAccount() {
        String first = identities.issueCode("telegram:100");
        String second = identities.issueCode("telegram:100");
        assertThat(identities.redeem("ann", first)).isInstanceOf(Identities.Redeemed.Unknown.class);
        assertThat(identities.redeem("ann", second)).isInstanceOf(Identities.Redeemed.Linked.class);
        assertThat(identities.redeem("bob", identities.issueCode("telegram:100")))
                .isEqualTo(new Identities.Redeemed.Elsewhere("telegram:100"));
        assertThat(identities.account("telegram:100")).contains("ann");
        assertThat(identities.redeem("ann", identities.issueCode("telegram:100"))).as("again by its own account")
                .isInstanceOf(Identities.Redeemed.Linked.class);
    }

    @Test
    void ownerOf_isTheAccountsKeyForItsWebChat_itsApiKeys_andItsLinkedChats() {
        identities.redeem("ann", identities.issueCode("telegram:100"));
        assertThat(identities.ownerOf("webchat:u:ann")).isEqualTo("webchat:u:ann");
        assertThat(identities.ownerOf("api_server:u:ann")).isEqualTo("webchat:u:ann");
        assertThat(identities.ownerOf("telegram:100")).isEqualTo("webchat:u:ann");
        assertThat(identities.ownerOf("telegram:200")).isEqualTo("telegram:200");
        assertThat(identities.ownerOf("api_server:ann")).as("an API user name is not an account").isEqualTo("api_server:ann");
        assertThat(identities.ownerOf(null)).isNull();
        assertThatThrownBy(() -> identities.issueCode("webchat:u:ann")).hasMessageContaining("only a chat identity");
    }

    @Test
    void memories_followTheLink_andAnUnlinkedChatHasItsOwnAgain() {
        Memories memories = identities.memories(Memories.inMemory());
        memories.add("webchat:u:ann", "prefers tea", null, Memory.Status.ACTIVE, clock.now);
        memories.add("telegram:100", "has a cat", null, Memory.Status.ACTIVE, clock.now);
        assertThat(memories.list("telegram:100", false, 10)).extracting(Memory::text).containsExactly("has a cat");

        identities.redeem("ann", identities.issueCode("telegram:100"));
        assertThat(memories.list("telegram:100", false, 10)).extracting(Memory::text).containsExactly("prefers tea");
        memories.add("telegram:100", "lives in Oslo", null, Memory.Status.ACTIVE, clock.now);
        assertThat(memories.list("api_server:u:ann", false, 10)).extracting(Memory::text).containsExactly("lives in Oslo", "prefers tea");

        assertThat(identities.unlink("telegram:100", "bob")).as("not bob's").isFalse();
        assertThat(identities.unlink("telegram:100", "ann")).isTrue();
        assertThat(memories.list("telegram:100", false, 10)).extracting(Memory::text).containsExactly("has a cat");
        assertThat(memories.count("webchat:u:ann")).isEqualTo(2);
    }

    @Test
    void aLinkMadeElsewhere_isSeenWithinTheCacheTime() throws Exception {
        IdentityLinks shared = IdentityLinks.inMemory();
        Identities nodeA = new Identities(shared, clock, Duration.ofMillis(300));
        Identities nodeB = new Identities(shared, clock, Duration.ofMillis(300));
        assertThat(nodeB.account("telegram:100")).isEmpty();
        nodeA.redeem("ann", nodeA.issueCode("telegram:100"));
        assertThat(nodeA.account("telegram:100")).contains("ann");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (nodeB.account("telegram:100").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(nodeB.account("telegram:100")).contains("ann");
    }
}
