package dev.herald.platforms.weixin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.store.sqlite.SqliteStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weixin's cursor and per-chat context tokens in the store (issue 11, item 3): the node that polls writes them, a node
 * that only sends replies reads a chat's latest token there, the next poller continues at the stored cursor, and a
 * {@code state.json} of an earlier version is imported once; a file one node received is fetched by another from the CDN
 * with the key kept in the store. Two stores on one SQLite file stand for two nodes.
 */
class WeixinStateStoreTest {
    @TempDir
    Path dir;
    SqliteStorage polling;
    SqliteStorage standing;

    @BeforeEach
    void open() {
        polling = SqliteStorage.open(dir.resolve("herald.db"), Clock.systemUTC());
        standing = SqliteStorage.open(dir.resolve("herald.db"), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        polling.close();
        standing.close();
    }

    @Test
    void theTokenThePollerSaw_isTheOneAnotherNodeRepliesWith_andTheNextPollerContinuesAtTheCursor() throws Exception {
        WeixinState poller = new WeixinState(polling.platformState(), null);
        WeixinState sender = new WeixinState(standing.platformState(), null);
        poller.rememberToken("wxid_alice", "token-1");
        assertThat(sender.contextToken("wxid_alice")).isEqualTo("token-1");
        poller.rememberToken("wxid_alice", "token-2");
        poller.acknowledge("cursor-7");

        assertThat(sender.contextToken("wxid_alice")).as("the latest token").isEqualTo("token-2");
        assertThat(sender.contextToken("wxid_bob")).isNull();
        assertThat(new WeixinState(standing.platformState(), null).cursor()).as("a node that polls next").isEqualTo("cursor-7");
    }

    @Test
    void aStateFileOfAnEarlierVersion_isImportedIntoAnEmptyStoreOnce() throws Exception {
        Path file = dir.resolve("weixin/state.json");
        WeixinState old = new WeixinState(file);
        old.rememberToken("wxid_carol", "token-c");
        old.acknowledge("cursor-3");
        assertThat(file).exists();

        WeixinState imported = new WeixinState(polling.platformState(), file);
        Files.writeString(file, "{\"cursor\":\"stale\",\"context_tokens\":{}}");
        WeixinState later = new WeixinState(standing.platformState(), file);

        assertThat(imported.cursor()).isEqualTo("cursor-3");
        assertThat(later.cursor()).as("the store has it: the file is not read again").isEqualTo("cursor-3");
        assertThat(later.contextToken("wxid_carol")).isEqualTo("token-c");
    }

    @Test
    void aFileOneNodeReceived_isFetchedByAnother_fromTheCdn_withTheKeyKeptInTheStore() throws Exception {
        try (FakeILink fake = new FakeILink("t")) {
            ILinkApi api = new ILinkApi(fake.apiBase(), "t");
            WeixinMedia received = new WeixinMedia(api, new WeixinCdn(fake.cdnBase()), new WeixinState(polling.platformState(), null), 4096);
            WeixinMedia other = new WeixinMedia(api, new WeixinCdn(fake.cdnBase()), new WeixinState(standing.platformState(), null), 4096);
            String[] stored = fake.store(WeixinMediaTest.PDF);
            var ref = received.receive(new WeixinMessages.MediaItem("file", stored[0], null,
                    java.util.Base64.getEncoder().encodeToString(stored[1].getBytes(java.nio.charset.StandardCharsets.US_ASCII)), "r.pdf", -1, null));

            assertThat(other.fetch(ref, 4096).bytes()).isEqualTo(WeixinMediaTest.PDF);
            assertThat(fake.cdnDownloads).as("received once, fetched again by the other node").hasSize(2);
            assertThat(polling.platformState().all(WeixinAdapter.PLATFORM).toString()).as("the key is in the store, not the reference")
                    .contains(stored[1]);
            assertThat(ref.ref()).doesNotContain(stored[1]).doesNotContain(stored[0]);
        }
    }
}
