package dev.herald.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import org.junit.jupiter.api.Test;

/** The users' long-term memories, for every store: kept per owner, newest first, and never reached through another owner. */
public abstract class MemoriesContract extends StorageContract {
    private static final String ANN = "telegram:100";
    private static final String BOB = "telegram:200";

    private Memories memories() {
        return storage.memories();
    }

    @Test
    void add_thenReopen_listsTheOwnersFactsNewestFirst_andNoneOfAnotherOwner() {
        Memory first = memories().add(ANN, "  prefers tea\nover coffee ", "agent:main:telegram:dm:100", Memory.Status.ACTIVE, clock.instant());
        memories().add(BOB, "lives in Oslo", null, Memory.Status.ACTIVE, clock.instant());
        Memory pending = memories().add(ANN, "has a cat named Io", null, Memory.Status.PENDING, clock.instant());
        assertThat(first.text()).as("one line, stripped").isEqualTo("prefers tea over coffee");
        assertThat(pending.id()).isGreaterThan(first.id());
        reopen();
        assertThat(memories().list(ANN, true, 10)).extracting(Memory::text, Memory::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("has a cat named Io", Memory.Status.PENDING),
                org.assertj.core.groups.Tuple.tuple("prefers tea over coffee", Memory.Status.ACTIVE));
        assertThat(memories().list(ANN, false, 10)).extracting(Memory::text).containsExactly("prefers tea over coffee");
        assertThat(memories().list(ANN, true, 1)).extracting(Memory::text).containsExactly("has a cat named Io");
        Memory stored = memories().list(ANN, false, 10).getFirst();
        assertThat(stored).isEqualTo(first);
        assertThat(memories().count(ANN)).isEqualTo(2);
        assertThat(memories().list("telegram:999", true, 10)).isEmpty();
    }

    @Test
    void forgetApproveAndPurge_touchOnlyTheOwnersRows() {
        Memory ann = memories().add(ANN, "prefers tea", null, Memory.Status.PENDING, clock.instant());
        Memory bob = memories().add(BOB, "lives in Oslo", null, Memory.Status.ACTIVE, clock.instant());
        memories().add(BOB, "likes jazz", null, Memory.Status.ACTIVE, clock.instant());

        assertThat(memories().forget(ANN, bob.id())).as("ann forgetting bob's id").isFalse();
        assertThat(memories().approve(BOB, ann.id())).as("bob approving ann's").isFalse();
        assertThat(memories().approve(ANN, ann.id())).isTrue();
        assertThat(memories().approve(ANN, ann.id())).as("approved twice").isFalse();
        assertThat(memories().purge(ANN)).isEqualTo(1);
        reopen();
        assertThat(memories().list(ANN, true, 10)).isEmpty();
        assertThat(memories().list(BOB, true, 10)).extracting(Memory::text).containsExactly("likes jazz", "lives in Oslo");
        assertThat(memories().forget(BOB, bob.id())).isTrue();
        assertThat(memories().forget(BOB, bob.id())).as("forgotten twice").isFalse();
        assertThat(memories().list(BOB, true, 10)).extracting(Memory::text).containsExactly("likes jazz");
    }

    @Test
    void add_refusesAnEmptyOrTooLongFact_namingTheLength() {
        assertThatThrownBy(() -> memories().add(ANN, " \n ", null, Memory.Status.ACTIVE, clock.instant()))
                .hasMessageContaining("is empty");
        assertThatThrownBy(() -> memories().add(ANN, "x".repeat(Memories.MAX_TEXT + 1), null, Memory.Status.ACTIVE, clock.instant()))
                .hasMessageContaining("at most 500 characters, this one has 501");
        assertThat(memories().add(ANN, "y".repeat(Memories.MAX_TEXT), null, Memory.Status.ACTIVE, clock.instant()).text()).hasSize(500);
        assertThat(memories().count(ANN)).isEqualTo(1);
    }

    @Test
    void reassign_givesEveryMemoryOfOneOwnerToAnother_keepingTheRest_andASecondCallFindsNone() {
        memories().add(ANN, "likes tea", "test", Memory.Status.ACTIVE, clock.instant());
        memories().add(ANN, "maybe moves", "test", Memory.Status.PENDING, clock.instant());
        memories().add(BOB, "likes jazz", "test", Memory.Status.ACTIVE, clock.instant());

        assertThat(memories().reassign(ANN, "webchat:u:ann")).isEqualTo(2);
        assertThat(memories().reassign(ANN, "webchat:u:carl")).isZero();

        assertThat(memories().list(ANN, true, 10)).isEmpty();
        assertThat(memories().list("webchat:u:ann", true, 10)).extracting(Memory::text, Memory::status)
                .containsExactlyInAnyOrder(org.assertj.core.api.Assertions.tuple("likes tea", Memory.Status.ACTIVE),
                        org.assertj.core.api.Assertions.tuple("maybe moves", Memory.Status.PENDING));
        assertThat(memories().list(BOB, true, 10)).extracting(Memory::text).containsExactly("likes jazz");
    }
}
