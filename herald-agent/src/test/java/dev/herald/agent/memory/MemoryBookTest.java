package dev.herald.agent.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.core.memory.Memories;
import dev.herald.core.memory.Memory;
import dev.herald.testkit.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The prompt block's budget, the limit per user, recall by words, and the "has none" mark that spares the query. */
class MemoryBookTest {
    private static final String ANN = "slack:U1";
    private final MutableClock clock = MutableClock.atNoon();
    private final AtomicInteger lists = new AtomicInteger();
    private final Memories store = counting(Memories.inMemory());

    private Memories counting(Memories inner) {
        return new Memories() {
            @Override
            public Memory add(String owner, String text, String source, Memory.Status status, java.time.Instant at) {
                return inner.add(owner, text, source, status, at);
            }

            @Override
            public java.util.List<Memory> list(String owner, boolean withPending, int limit) {
                lists.incrementAndGet();
                return inner.list(owner, withPending, limit);
            }

            @Override
            public int count(String owner) {
                return inner.count(owner);
            }

            @Override
            public boolean forget(String owner, long id) {
                return inner.forget(owner, id);
            }

            @Override
            public boolean approve(String owner, long id) {
                return inner.approve(owner, id);
            }

            @Override
            public int purge(String owner) {
                return inner.purge(owner);
            }
        };
    }

    @Test
    void promptBlock_keepsTheNewestFactsWithinTheBudget_andSaysHowManyWereLeftOut() {
        MemoryBook book = new MemoryBook(store, new MemorySettings(true, 100, 200, false), clock);
        for (int i = 1; i <= 6; i++) {
            book.remember(ANN, "fact number " + i + " " + "x".repeat(40), null);
        }
        String block = book.promptBlock(ANN).orElseThrow();
        // each line is "\n- fact number N xxx... (2026-..)": 2 + 56 + 13 = 71 characters, so two fit in 200
        assertThat(block).startsWith(MemoryBook.HEADER).contains("- fact number 6 ").contains("- fact number 5 ")
                .doesNotContain("fact number 4").endsWith("\n(4 older facts were left out for space; the memory tool's recall finds them.)");
        assertThat(block.length() - MemoryBook.HEADER.length()).isLessThan(200 + 90);
    }

    @Test
    void remember_refusesPastMaxEntries_andRecallMatchesEveryWord() {
        MemoryBook book = new MemoryBook(store, new MemorySettings(true, 2, 2000, false), clock);
        book.remember(ANN, "Prefers green tea", null);
        book.remember(ANN, "Drinks coffee on Mondays", null);
        assertThatThrownBy(() -> book.remember(ANN, "a third", null)).hasMessageContaining("already has 2 memories")
                .hasMessageContaining("agent.memory.max_entries");
        assertThat(book.recall(ANN, "TEA green")).extracting(Memory::text).containsExactly("Prefers green tea");
        assertThat(book.recall(ANN, "tea mondays")).isEmpty();
        assertThat(book.recall(ANN, "")).hasSize(2);
        assertThat(book.recall("slack:U2", "")).isEmpty();
    }

    @Test
    void anOwnerWithNone_costsOneQueryAMinute_untilTheyRememberSomething() {
        MemoryBook book = new MemoryBook(store, MemorySettings.DEFAULTS, clock);
        assertThat(book.promptBlock(ANN)).isEmpty();
        assertThat(book.promptBlock(ANN)).isEmpty();
        assertThat(lists.get()).as("the second turn asked nothing").isEqualTo(1);
        clock.advance(Duration.ofSeconds(61));
        assertThat(book.promptBlock(ANN)).isEmpty();
        assertThat(lists.get()).isEqualTo(2);

        book.remember(ANN, "Prefers tea", null);
        assertThat(book.promptBlock(ANN)).hasValueSatisfying(b -> assertThat(b).contains("- Prefers tea ("));
        assertThat(new MemoryBook(store, new MemorySettings(false, 100, 2000, false), clock).promptBlock(ANN)).as("memory off").isEmpty();
        assertThat(book.promptBlock(null)).as("no user").isEmpty();
    }
}
