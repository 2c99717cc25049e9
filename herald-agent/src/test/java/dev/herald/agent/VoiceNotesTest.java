package dev.herald.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.agent.model.OpenAiCompatibleClient;
import dev.herald.agent.tool.BuiltinTools;
import dev.herald.agent.tool.ToolRegistry;
import dev.herald.agent.tool.ToolSettings;
import dev.herald.agent.voice.AudioFiles;
import dev.herald.agent.voice.VoiceSettings;
import dev.herald.core.agent.TurnRequest;
import dev.herald.core.config.Secret;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent.MediaRef;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.testkit.model.FakeModelServer;
import dev.herald.testkit.model.Reply;
import dev.herald.testkit.voice.FakeTranscriptionServer;
import dev.herald.testkit.voice.Speech;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Voice notes are heard before the model reads the message: real speech (espeak-ng, encoded by opusenc as the OGG/Opus
 * voice note a phone sends) is fetched through the platform, sent to the configured transcription endpoint (a local
 * server that parses the form as the real one does), and the model reads {@code [voice note, N s] ...}. The transcript
 * is kept, so a resumed turn does not send the audio again; without an endpoint a voice-only message gets one clear
 * sentence and the model is not asked.
 */
class VoiceNotesTest {
    @TempDir
    static Path audioDir;
    static byte[] voiceNote;
    static double spokenSeconds;

    @TempDir
    Path tmp;
    final FakeModelServer model = FakeModelServer.start();
    final OpenAiCompatibleClient client = Harness.client(model);
    final FakeTranscriptionServer whisper = FakeTranscriptionServer.start().saying("what is the weather like in Berlin today");
    final Map<String, byte[]> telegramFiles = new ConcurrentHashMap<>();
    final MediaFetcher telegram = (ref, max) -> {
        byte[] b = telegramFiles.get(ref.ref());
        if (b == null) {
            throw new IOException("telegram - no such file");
        }
        return new MediaFetcher.Fetched(b, "audio/ogg");
    };

    @BeforeAll
    static void speak() throws Exception {
        voiceNote = Speech.oggOpus("What is the weather like in Berlin today?", audioDir);
        spokenSeconds = AudioFiles.seconds(Speech.wav("What is the weather like in Berlin today?", audioDir)).orElseThrow();
    }

    @AfterEach
    void stop() {
        client.close();
        model.close();
        whisper.close();
    }

    private VoiceSettings.Transcription endpoint(VoiceSettings.AudioFormat format) {
        return new VoiceSettings.Transcription(whisper.baseUrl().toString(), Secret.of("sk-voice-secret-1"), "whisper-large", "en", format, 30,
                VoiceSettings.DEFAULT_MAX_BYTES);
    }

    private ModelAgent agent(VoiceSettings.Transcription transcription) {
        ToolSettings settings = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file"));
        ToolRegistry tools = new ToolRegistry(settings, BuiltinTools.all(settings), List.of());
        java.util.function.Function<String, Optional<MediaFetcher>> fetchers = p -> p.equals("telegram") ? Optional.of(telegram) : Optional.empty();
        return new ModelAgent(client, AgentSettings.DEFAULT, tools, fetchers, new Approvals(),
                new VoiceNotes(new VoiceSettings(transcription, VoiceSettings.Speech.defaults()), fetchers));
    }

    private MediaRef voice(String id) {
        telegramFiles.put(id, voiceNote);
        return new MediaRef("voice", id, "audio/ogg", null, voiceNote.length);
    }

    private static TurnRequest turn(String text, MediaRef... refs) {
        return new TurnRequest("s1", "agent:main:telegram:dm:7", List.of(), text, true, "telegram", null, List.of(refs));
    }

    @Test
    void voiceNote_isTranscribed_andTheModelReadsWhatWasSaid_withItsLength() throws Exception {
        model.enqueue(Reply.text("Mild and sunny."));

        TurnOutcome outcome = agent(endpoint(VoiceSettings.AudioFormat.ORIGINAL)).runTurn(turn("", voice("AwACAgIAAxk-voice-1")), null, null);

        assertThat(outcome.replyText()).isEqualTo("Mild and sunny.");
        long seconds = Math.max(1, Math.round(spokenSeconds));
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("[voice note, " + seconds + " s] what is the weather like in Berlin today");
        assertThat(whisper.requests()).hasSize(1);
        FakeTranscriptionServer.Request sent = whisper.requests().getFirst();
        assertThat(sent.audio()).as("the voice note as the chat sent it").isEqualTo(voiceNote);
        assertThat(sent.fileName()).isEqualTo("voice.ogg");
        assertThat(sent.fileType()).isEqualTo("audio/ogg");
        assertThat(sent.fields()).containsEntry("model", "whisper-large").containsEntry("language", "en");
        assertThat(sent.authorization()).isEqualTo("Bearer sk-voice-secret-1");
        assertThat(AudioFiles.seconds(sent.audio()).orElseThrow()).as("OGG/Opus length against the WAV espeak-ng wrote")
                .isCloseTo(spokenSeconds, org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void aVoiceNoteLongerThanMaxSeconds_isNotSent_andTheModelKnowsWhy() throws Exception {
        model.enqueue(Reply.text("That one is too long for me; could you split it?"));
        VoiceSettings.Transcription e = endpoint(VoiceSettings.AudioFormat.ORIGINAL);
        VoiceSettings.Transcription oneSecond = new VoiceSettings.Transcription(e.baseUrl(), e.apiKey(), e.model(), e.language(), e.format(),
                e.timeoutSeconds(), e.maxBytes(), 1);

        TurnOutcome outcome = agent(oneSecond).runTurn(turn("", voice("AwACAgIAAxk-long")), null, null);

        assertThat(outcome.replyText()).isEqualTo("That one is too long for me; could you split it?");
        assertThat(whisper.requests()).as("the audio never left Herald").isEmpty();
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("[voice note, " + Math.round(spokenSeconds)
                + " s: not transcribed, it is longer than 1 s (voice.transcription.max_seconds); tell the user to send a shorter one]");
    }

    @Test
    void aRealOfflineRecogniser_hearsTheSpokenSentence_andTheModelReadsItsWords() throws Exception {
        Path grammar = java.nio.file.Files.writeString(tmp.resolve("commands.jsgf"), """
                #JSGF V1.0;
                grammar commands;
                public <command> = (turn on | turn off) the (kitchen | bedroom | garden) (light | lamp | heater);
                """);
        whisper.recognising(grammar);
        telegramFiles.put("AwACAgIAAxk-asr", Speech.oggOpus("turn on the kitchen light", tmp));
        model.enqueue(Reply.text("Done."));

        agent(endpoint(VoiceSettings.AudioFormat.ORIGINAL)).runTurn(turn("", new MediaRef("voice", "AwACAgIAAxk-asr", "audio/ogg")), null, null);

        assertThat(model.lastRequest().lastUserMessage()).as("pocketsphinx on espeak-ng speech, sent as the OGG/Opus voice note")
                .matches("\\[voice note, \\d+ s\\] turn on the kitchen light");
    }

    @Test
    void formatWav_convertsTheVoiceNoteWithFfmpeg_to16kHzMono() throws Exception {
        model.enqueue(Reply.text("ok"));

        agent(endpoint(VoiceSettings.AudioFormat.WAV)).runTurn(turn("", voice("AwACAgIAAxk-voice-2")), null, null);

        FakeTranscriptionServer.Request sent = whisper.requests().getFirst();
        byte[] wav = sent.audio();
        assertThat(new String(wav, 0, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("RIFF");
        assertThat(new String(wav, 8, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("WAVE");
        int channels = (wav[22] & 0xff) | (wav[23] & 0xff) << 8;
        int rate = (wav[24] & 0xff) | (wav[25] & 0xff) << 8 | (wav[26] & 0xff) << 16;
        assertThat(channels).isEqualTo(1);
        assertThat(rate).isEqualTo(16_000);
        assertThat(sent.fileName()).isEqualTo("voice.wav");
        assertThat(sent.fileType()).isEqualTo("audio/wav");
        assertThat(AudioFiles.seconds(wav).orElseThrow()).isCloseTo(spokenSeconds, org.assertj.core.data.Offset.offset(0.15));
    }

    @Test
    void theSameVoiceNoteInALaterOrResumedTurn_isReadFromTheKeptTranscript_notSentAgain() throws Exception {
        model.enqueue(Reply.text("first"), Reply.text("second"));
        ModelAgent agent = agent(endpoint(VoiceSettings.AudioFormat.ORIGINAL));
        MediaRef note = voice("AwACAgIAAxk-voice-3");

        agent.runTurn(turn("", note), null, null);
        agent.runTurn(turn("", note), null, null);

        assertThat(whisper.requests()).hasSize(1);
        assertThat(model.requests().get(1).lastUserMessage()).startsWith("[voice note, ").endsWith("] what is the weather like in Berlin today");
    }

    @Test
    void withSpeech_theAnswerToAVoiceNote_isSpokenToo_asAnOggOpusFileOfTheReply_withoutItsCode() throws Exception {
        model.enqueue(Reply.text("It is mild and sunny.\n```\ncurl wttr.in/Berlin\n```"), Reply.text("typed answer"));
        try (dev.herald.testkit.voice.FakeSpeechServer tts = dev.herald.testkit.voice.FakeSpeechServer.start(audioDir)) {
            ToolSettings settings = ToolSettings.defaults(tmp.resolve("workspaces")).withTools(List.of("read_file"));
            ToolRegistry tools = new ToolRegistry(settings, BuiltinTools.all(settings), List.of());
            java.util.function.Function<String, Optional<MediaFetcher>> fetchers = p -> p.equals("telegram") ? Optional.of(telegram) : Optional.empty();
            VoiceSettings.Speech speech = new VoiceSettings.Speech(tts.baseUrl().toString(), Secret.NONE, "piper", "en_US-amy", 
                    VoiceSettings.SpeechFormat.OPUS, 500, 30);
            ModelAgent agent = new ModelAgent(client, AgentSettings.DEFAULT, tools, fetchers, new Approvals(),
                    new VoiceNotes(new VoiceSettings(endpoint(VoiceSettings.AudioFormat.ORIGINAL), speech), fetchers));
            RecordingListener heard = new RecordingListener();

            agent.runTurn(turn("", voice("AwACAgIAAxk-voice-8")), heard, null);
            RecordingListener typed = new RecordingListener();
            agent.runTurn(turn("and in text?"), typed, null);

            assertThat(heard.files).singleElement().satisfies(f -> {
                assertThat(f.mimeType()).isEqualTo("audio/ogg");
                assertThat(f.name()).isEqualTo("answer.ogg");
                byte[] audio = java.nio.file.Files.readAllBytes(Path.of(f.path()));
                assertThat(AudioFiles.typeOf(audio)).contains("audio/ogg");
                assertThat(AudioFiles.seconds(audio).orElseThrow()).isGreaterThan(0.5);
                assertThat(f.present()).isTrue();
            });
            assertThat(tts.requests()).singleElement().satisfies(body -> assertThat(body)
                    .contains("\"input\":\"It is mild and sunny.\\n(The code is in the text.)\"")
                    .contains("\"voice\":\"en_US-amy\"").contains("\"response_format\":\"opus\"").doesNotContain("curl"));
            assertThat(typed.files).as("a typed message is answered in text only").isEmpty();
        }
    }

    @Test
    void withoutAnEndpoint_aVoiceOnlyMessageGetsOneClearSentence_andTheModelIsNotAsked() {
        TurnOutcome outcome = agent(VoiceSettings.Transcription.defaults()).runTurn(turn("", voice("AwACAgIAAxk-voice-4")), null, null);

        assertThat(outcome).isInstanceOf(TurnOutcome.Final.class);
        assertThat(outcome.replyText()).isEqualTo(VoiceNotes.NOT_CONFIGURED).contains("voice.transcription");
        assertThat(model.requests()).isEmpty();
        assertThat(whisper.requests()).isEmpty();
    }

    @Test
    void withoutAnEndpoint_aVoiceNoteBesideText_isALineTheModelReads() {
        model.enqueue(Reply.text("ok"));

        agent(VoiceSettings.Transcription.defaults()).runTurn(turn("and this one", voice("AwACAgIAAxk-voice-5")), null, null);

        assertThat(model.lastRequest().lastUserMessage())
                .isEqualTo("and this one\n[voice note: not heard, voice.transcription is not configured; tell the user to send text]");
    }

    @Test
    void anEndpointThatFailsThenAnswers_isTriedAgain_andOneThatRefuses_isToldToTheModel_withoutItsKey() {
        whisper.failNext(503, "{\"error\":{\"message\":\"loading model\"}}");
        model.enqueue(Reply.text("ok"), Reply.text("sorry"));
        ModelAgent agent = agent(endpoint(VoiceSettings.AudioFormat.ORIGINAL));

        agent.runTurn(turn("", voice("AwACAgIAAxk-voice-6")), null, null);
        assertThat(whisper.requests()).hasSize(2);
        assertThat(model.lastRequest().lastUserMessage()).endsWith("] what is the weather like in Berlin today");

        whisper.failNext(400, "{\"error\":{\"message\":\"audio file could not be decoded\"}}");
        agent.runTurn(turn("", voice("AwACAgIAAxk-voice-7")), null, null);
        assertThat(whisper.requests()).as("a 400 is not tried again").hasSize(3);
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("[voice note: could not be transcribed (the transcription endpoint "
                + "answered 400: audio file could not be decoded); tell the user to try again or send text]")
                .doesNotContain("sk-voice-secret-1");
    }
}
