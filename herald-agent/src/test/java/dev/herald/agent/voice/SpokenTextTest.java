package dev.herald.agent.voice;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What is read aloud of an answer: prose yes; code, tables and URLs no; Markdown marks dropped; long answers cut at a sentence. */
class SpokenTextTest {
    @Test
    void codeBlocksAndTables_areNotReadAloud_linksReadAsTheirText_marksDropped() {
        String answer = """
                ## Result
                The **build** passed, see [the log](https://ci.example.org/run/42).
                ```bash
                mvn verify
                ```
                | test | time |
                |---|---|
                | a | 1 s |
                - _three_ warnings
                Visit https://example.org later.""";

        assertThat(Speaker.spoken(answer, 1000)).isEqualTo("""
                Result
                The build passed, see the log.
                (The code is in the text.)
                (The table is in the text.)
                three warnings
                Visit (a link) later.""");
    }

    @Test
    void aLongAnswer_isCutAtASentence_andSaysTheRestIsInTheText() {
        String answer = "First sentence here. Second sentence is a bit longer. Third one would not fit in the limit at all.";

        String spoken = Speaker.spoken(answer, 80);

        assertThat(spoken).isEqualTo("First sentence here. Second sentence is a bit longer. The rest is in the text.");
        assertThat(spoken.length()).isLessThanOrEqualTo(80);
    }
}
