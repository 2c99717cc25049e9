package dev.herald.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.herald.testkit.model.RecordedRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/soak-faults} without its minutes: the options, how each message is judged (lost, duplicated, truncated)
 * against a transcript, the result rows, and one short run of the streams scenario against the real {@code herald run}
 * ({@code bin/herald}) that must print a row of zeros. No timing is asserted.
 */
class FaultSoakTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void parse_noOptions_runsEveryScenarioWithTheDefaults() {
        FaultSoak.Options o = FaultSoak.Options.parse(new String[0]);

        assertThat(o.only()).containsExactly("cluster", "streams", "outage", "disk");
        assertThat(List.of(o.pairs(), o.disruptions(), o.lease(), o.clients(), o.messages(), o.outageSeconds(), o.fullSeconds(), o.diskMb()))
                .containsExactly(3, 10, 3, 6, 400, 15, 10, 48);
        assertThat(o.cutFraction()).isEqualTo(0.3);
        assertThat(o.launcher()).isAbsolute();
    }

    @Test
    void parse_onlyInAnyOrder_runsThemInTheCommandsOrder() {
        FaultSoak.Options o = FaultSoak.Options.parse(new String[] {"--only", "disk, Streams", "--seed", "42", "--clients", "2"});

        assertThat(o.only()).containsExactly("streams", "disk");
        assertThat(o.seed()).isEqualTo(42);
        assertThat(o.clients()).isEqualTo(2);
    }

    @Test
    void parse_unknownScenarioOptionOrNumber_isRefusedSayingWhatIsAllowed() {
        assertThatThrownBy(() -> FaultSoak.Options.parse(new String[] {"--only", "streams,network"}))
                .hasMessage("soak - unknown scenario 'network' in --only; use some of cluster, streams, outage, disk");
        assertThatThrownBy(() -> FaultSoak.Options.parse(new String[] {"--kills", "3"}))
                .hasMessage("soak - unknown option --kills; bin/soak-faults --help lists them");
        assertThatThrownBy(() -> FaultSoak.Options.parse(new String[] {"--pairs", "0"})).hasMessage("soak - --pairs must be at least 1, was 0");
        assertThatThrownBy(() -> FaultSoak.Options.parse(new String[] {"--cut-fraction", "1.5"}))
                .hasMessage("soak - --cut-fraction must be 0..1, was 1.5");
    }

    @Test
    void run_badOptions_exits2AndSaysWhy() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = FaultSoak.run(new String[] {"--only", "nope"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown scenario 'nope'");
        assertThat(out.size()).isZero();
    }

    @Test
    void count_eachKindOfOutcome_isJudgedAgainstTheTranscriptAsTheHeaderSays() {
        SoakLedger ledger = new SoakLedger();
        List<SoakLedger.Stored> transcript = new ArrayList<>();
        // t1: answered whole; t2: cut off and told; t3: cut off by a kill, the next turn (t4) continued it
        exchange(transcript, "s1", 1, "t1", EchoModel.whole("t1"));
        ledger.add("s1", "t1", answered(EchoModel.whole("t1")));
        exchange(transcript, "s1", 3, "t2", "ECHO: t2 alpha\n\n(This answer is incomplete: the model's answer broke off.)");
        ledger.add("s1", "t2", outcome(SoakClient.Kind.CUT_OFF, "ECHO: t2 alpha (This answer is incomplete ...)"));
        transcript.add(new SoakLedger.Stored("s1", 5, "user", "t3"));
        ledger.add("s1", "t3", outcome(SoakClient.Kind.CONTINUED, "cut off by a restart; the session's next turn continued it"));
        exchange(transcript, "s1", 6, "t4", EchoModel.whole("t4"));
        ledger.add("s1", "t4", answered(EchoModel.whole("t4")));
        // t5: the client gave up and nothing answers it: lost
        transcript.add(new SoakLedger.Stored("s2", 1, "user", "t5"));
        ledger.add("s2", "t5", outcome(SoakClient.Kind.FAILED, "no answer within 150 s"));
        // t6: a part passed off as the whole answer: truncated
        exchange(transcript, "s3", 1, "t6", "ECHO: t6 alpha");
        ledger.add("s3", "t6", answered("ECHO: t6 alpha"));
        // t7 stored twice, t8 answered twice: duplicated
        exchange(transcript, "s3", 3, "t7", EchoModel.whole("t7"));
        exchange(transcript, "s3", 5, "t7", EchoModel.whole("t7"));
        ledger.add("s3", "t7", answered(EchoModel.whole("t7")));
        exchange(transcript, "s4", 1, "t8", EchoModel.whole("t8"));
        transcript.add(new SoakLedger.Stored("s4", 3, "assistant", EchoModel.whole("t8")));
        ledger.add("s4", "t8", answered(EchoModel.whole("t8")));
        // t9 answered but not in any transcript: lost; t10 stored behind a recovery note: stored once
        ledger.add("s5", "t9", answered(EchoModel.whole("t9")));
        exchange(transcript, "s5", 1, "[System note: The previous turn was interrupted by a gateway restart.]\n\nt10", EchoModel.whole("t10"));
        ledger.add("s5", "t10", answered(EchoModel.whole("t10")));

        SoakLedger.Counts c = ledger.count(transcript, 1);

        assertThat(c.messages()).isEqualTo(10);
        assertThat(c.lost()).as("%s", c.problems()).isEqualTo(2);
        assertThat(c.duplicated()).as("%s", c.problems()).isEqualTo(2);
        assertThat(c.truncated()).as("%s", c.problems()).isEqualTo(1);
        assertThat(c.stuck()).isEqualTo(1);
        assertThat(c.clean()).isFalse();
        assertThat(c.kind(SoakClient.Kind.CONTINUED)).isEqualTo(1);
        assertThat(c.kind(SoakClient.Kind.CUT_OFF)).isEqualTo(1);
        assertThat(c.problems()).anyMatch(p -> p.startsWith("lost: t5 (session s2): no answer within 150 s"))
                .anyMatch(p -> p.startsWith("lost: t9 (session s5) was answered but is not in its transcript"))
                .anyMatch(p -> p.equals("duplicated: t7 stored 2 time(s), answered 2 time(s)"))
                .anyMatch(p -> p.equals("duplicated: t8 stored 1 time(s), answered 2 time(s)"))
                .anyMatch(p -> p.equals("truncated: t6 was answered as complete with 'ECHO: t6 alpha'"));
    }

    @Test
    void row_countedSkippedAndBrokenScenarios_printOneRowEachAndOnlyCountsOrABreakdownFail() {
        SoakLedger.Counts clean = new SoakLedger.Counts(120, 0, 0, 0, 0, Map.of(), List.of());
        SoakLedger.Counts lost = new SoakLedger.Counts(120, 1, 0, 0, 0, Map.of(), List.of());
        FaultSoak.Result ok = FaultSoak.Result.counted("outage", clean, "PostgreSQL stopped for 15 s");
        FaultSoak.Result skipped = FaultSoak.Result.skipped("disk", FullDiskSoak.NEEDS_ROOT);

        assertThat(FaultSoak.row(ok)).isEqualTo("outage         120     0          0      0         0  PostgreSQL stopped for 15 s\n");
        assertThat(FaultSoak.row(skipped)).isEqualTo("disk             -     -          -      -         -  skipped: needs root to mount a small file system\n");
        assertThat(ok.failed()).isFalse();
        assertThat(skipped.failed()).isFalse();
        assertThat(FaultSoak.Result.counted("outage", lost, "").failed()).isTrue();
        assertThat(FaultSoak.Result.broke("cluster", "node 1 exited 78").failed()).isTrue();
    }

    @Test
    void message_requestsWithRecoveryNotes_answerTheUsersMessage() throws Exception {
        String note = "[System note: The previous turn was interrupted by a gateway restart; the gateway is now back online.]";

        assertThat(EchoModel.message(request(List.of("m1", "m2")))).isEqualTo("m2");
        assertThat(EchoModel.message(request(List.of("m1", note + "\n\nm2")))).as("the next turn told of a cut-off one").isEqualTo("m2");
        assertThat(EchoModel.message(request(List.of("m1", note)))).as("an automatic resume").isEqualTo("m1");
        assertThat(EchoModel.whole("m1")).isEqualTo("ECHO: m1 alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima");
    }

    /** One short run of the streams scenario against bin/herald: the header, a row of zeros, exit 0, nothing left behind. */
    @Test
    void run_streamsForAFewMessages_printsARowOfZerosAndLeavesNothingBehind() throws Exception {
        jarIsBuilt();
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            code = FaultSoak.run(new String[] {"--only", "streams", "--messages", "12", "--clients", "2", "--cut-fraction", "0.5",
                "--seed", "7", "--herald", launcher(), "--dir", dir.toString()}, out, System.err);
        }
        String output = buffer.toString(StandardCharsets.UTF_8);

        assertThat(code).as(output).isZero();
        assertThat(output).contains("lost       = a message the client sent that was never answered")
                .containsPattern("(?m)^scenario +messages +lost +duplicated +stuck +truncated +details$")
                .containsPattern("(?m)^streams +12 +0 +0 +0 +0  \\d+ answers cut off \\(.*\\): \\d+ retried to completion, \\d+ delivered as incomplete");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("the soak's folder is deleted after a clean run").isEmpty();
        }
        assertThat(ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse("")).filter(c -> c.contains(dir.toString())))
                .isEmpty();
    }

    private static void exchange(List<SoakLedger.Stored> transcript, String session, long seq, String user, String answer) {
        transcript.add(new SoakLedger.Stored(session, seq, "user", user));
        transcript.add(new SoakLedger.Stored(session, seq + 1, "assistant", answer));
    }

    private static SoakClient.Outcome answered(String text) {
        return outcome(SoakClient.Kind.ANSWERED, text);
    }

    private static SoakClient.Outcome outcome(SoakClient.Kind kind, String text) {
        return new SoakClient.Outcome(kind, text, 1, System.nanoTime());
    }

    private static RecordedRequest request(List<String> userMessages) throws Exception {
        var body = JSON.createObjectNode();
        var messages = body.putArray("messages");
        for (String m : userMessages) {
            messages.addObject().put("role", "user").put("content", m);
            messages.addObject().put("role", "assistant").put("content", "ok");
        }
        return new RecordedRequest("POST", "/v1/chat/completions", Map.of(), body.toString(), body);
    }

    /** bin/herald builds the jar when it is missing or older than the sources: here, not inside a node's start bound. */
    private static void jarIsBuilt() throws Exception {
        Process p = new ProcessBuilder(launcher(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    private static String launcher() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("bin/herald")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p.resolve("bin/herald").toString();
            }
        }
        throw new IllegalStateException("cannot find the repository root (bin/herald) above " + Path.of("").toAbsolutePath());
    }
}
