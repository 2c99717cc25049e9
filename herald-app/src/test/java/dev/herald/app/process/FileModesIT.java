package dev.herald.app.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.app.CliEnvironment;
import dev.herald.app.Main;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code herald run} in a home that already exists with mode 755 (and a umask of 022): every file and
 * folder Herald creates is its owner's only, the open home is warned about with the command that closes it, and a
 * stateless API call leaves no workspace behind.
 */
class FileModesIT {
    @TempDir
    Path parent;
    Path home;
    FakeModelServer model;
    HeraldProcess herald;

    @BeforeEach
    void setUp() throws Exception {
        home = Files.createDirectories(parent.resolve("home"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        model = FakeModelServer.start();
    }

    @AfterEach
    void tearDown() {
        if (herald != null) {
            herald.close();
        }
        model.close();
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void aPreExistingOpenHome_getsOwnerOnlyFiles_aWarningWithTheFix_andNoStatelessLeftovers() throws Exception {
        herald = HeraldProcess.configure(home, model.baseUrl().toString(), "drain_timeout_seconds: 1", null);
        herald.rewriteConfig("agent:\n  tools: []\n", "agent:\n  tools: [todo, write_file]\n");
        herald.start().awaitReady();
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c1", "todo", "{\"action\":\"add\",\"text\":\"ship it\"}")), Reply.text("noted"));
        assertThat(HeraldProcess.answer(herald.chat("plans", "remember to ship").get())).isEqualTo("noted");
        model.enqueue(Reply.toolCalls(new Reply.ToolCall("c2", "write_file", "{\"path\":\"scratch.txt\",\"content\":\"temp\"}")),
                Reply.text("written"));
        assertThat(HeraldProcess.answer(herald.statelessChat("write a scratch file").get())).isEqualTo("written");
        StringWriter out = new StringWriter();
        Main.run(new CliEnvironment(Map.of(), parent, new PrintWriter(out, true), new PrintWriter(out, true)),
                "pairing", "approve", "telegram", "ABCDEFGH", "--home", home.toString());

        assertThat(mode(home)).as("an existing home keeps the mode its owner gave it").isEqualTo("rwxr-xr-x");
        assertThat(herald.output()).contains("home - " + home + " is open to other users of this machine (mode 755)",
                "run: chmod 700 " + home);
        for (String file : List.of("herald.db", "herald.db-wal", "herald.db-shm", "herald.db-lock", "gateway.pid", "gateway_state.json",
                "unclean_starts.log", "logs/herald.log", "pairing/telegram.json", "pairing/telegram.lock")) {
            assertThat(mode(home.resolve(file))).as(file).isEqualTo("rw-------");
        }
        List<Path> workspaces;
        try (Stream<Path> s = Files.list(home.resolve("workspaces"))) {
            workspaces = s.toList();
        }
        assertThat(workspaces).as("the session's workspace only: the stateless call's was removed").hasSize(1);
        assertThat(workspaces.get(0).resolve(".herald-todo.md")).content().contains("ship it");
        for (Path folder : List.of(home.resolve("logs"), home.resolve("pairing"), home.resolve("workspaces"), workspaces.get(0))) {
            assertThat(mode(folder)).as(folder.toString()).isEqualTo("rwx------");
        }
    }
}
