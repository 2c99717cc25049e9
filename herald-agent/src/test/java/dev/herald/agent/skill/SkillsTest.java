package dev.herald.agent.skill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Discovering skills on disk: valid ones listed, invalid ones skipped with a warning naming the file, changes picked up. */
class SkillsTest {
    @TempDir
    Path home;
    @TempDir
    Path elsewhere;
    private Path root;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void capture() {
        root = home.resolve("skills");
        logs.start();
        ((Logger) LoggerFactory.getLogger(Skills.class)).addAppender(logs);
    }

    @AfterEach
    void release() {
        ((Logger) LoggerFactory.getLogger(Skills.class)).detachAppender(logs);
    }

    static Path skill(Path root, String folder, String text) throws IOException {
        Path dir = Files.createDirectories(root.resolve(folder));
        return Files.writeString(dir.resolve("SKILL.md"), text);
    }

    static String md(String name, String description, String body) {
        return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body + "\n";
    }

    private List<String> warnings() {
        return logs.list.stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void validSkills_areListedByName_withDescriptionAndBody_andInvalidOnesAreWarnedAboutByFileAndSkipped() throws IOException {
        skill(root, "pdf-report", md("pdf-report", "Turns notes into a PDF report. Use when asked for a report.", "# Steps\n1. Collect."));
        skill(root, "alpha", md("alpha", "\"First, quoted: yes\"", "Alpha body"));
        Path noName = skill(root, "no-name", "---\ndescription: lacks a name\n---\nbody");
        Path noDescription = skill(root, "no-description", "---\nname: no-description\n---\nbody");
        Path mismatch = skill(root, "folder-a", md("folder-b", "wrong folder", "body"));
        Path badYaml = skill(root, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody");
        Path noFront = skill(root, "no-front", "# Just markdown\n");
        Path huge = skill(root, "huge", md("huge", "big", "x".repeat(Skills.MAX_SKILL_BYTES)));
        Path tag = skill(root, "tagged", "---\nname: !!java.io.File tagged\ndescription: a tag\n---\nbody");
        Files.createDirectories(root.resolve("empty-folder"));
        Files.createDirectories(root.resolve(".git"));

        List<Skill> found = new Skills(root, false).checkAtStart();

        // a YAML tag constructs nothing: the loader builds a plain tree, so the tagged name is just the text after the tag
        assertThat(found).extracting(Skill::name).containsExactly("alpha", "pdf-report", "tagged");
        assertThat(found.get(0).description()).isEqualTo("First, quoted: yes");
        assertThat(found.get(1).body()).isEqualTo("# Steps\n1. Collect.");
        assertThat(found.get(1).dir()).isEqualTo(root.resolve("pdf-report").toAbsolutePath());
        List<String> warned = warnings();
        assertThat(warned).anySatisfy(w -> assertThat(w).isEqualTo("skills - " + noName + " skipped: its front matter has no name:"));
        assertThat(warned).anySatisfy(w -> assertThat(w).isEqualTo("skills - " + noDescription + " skipped: its front matter has no description:"));
        assertThat(warned).anySatisfy(w -> assertThat(w).isEqualTo("skills - " + mismatch
                + " skipped: its name 'folder-b' does not match its folder 'folder-a'"));
        assertThat(warned).anySatisfy(w -> assertThat(w).startsWith("skills - " + badYaml + " skipped: its front matter is not valid YAML ("));
        assertThat(warned).anySatisfy(w -> assertThat(w).startsWith("skills - " + noFront + " skipped: it does not start with YAML front matter"));
        assertThat(warned).anySatisfy(w -> assertThat(w).startsWith("skills - " + huge + " skipped: it has ").endsWith("a SKILL.md may have at most 65536"));
        assertThat(warned).anySatisfy(w -> assertThat(w).isEqualTo("skills - " + root.resolve("empty-folder").resolve("SKILL.md")
                + " skipped: the folder has no SKILL.md"));
        assertThat(warned).hasSize(7).noneMatch(w -> w.contains(tag.toString()));
        assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage()).isEqualTo("skills - 3 skill(s) in " + root + ": alpha, pdf-report, tagged"));
    }

    @Test
    void aWarning_isLoggedOncePerChange_notOnEveryLook() throws IOException {
        Path bad = skill(root, "broken", "---\nname: broken\n---\n");
        Skills skills = new Skills(root, false);
        skills.list();
        skills.list();
        skills.list();
        assertThat(warnings()).hasSize(1);

        Files.writeString(bad, "---\nname: other\ndescription: d\n---\n");
        skills.list();
        assertThat(warnings()).hasSize(2).last().asString().contains("does not match its folder");
    }

    @Test
    void aSkillAddedOrChangedOnDisk_isSeenWithoutARestart() throws IOException {
        Skills skills = new Skills(root, false);
        assertThat(skills.list()).isEmpty();

        Path file = skill(root, "deploy", md("deploy", "Deploys the site.", "Run the old steps."));
        assertThat(skills.list()).extracting(Skill::description).containsExactly("Deploys the site.");

        Files.writeString(file, md("deploy", "Deploys the site, new way.", "Run the new steps."));
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 2_000));
        assertThat(skills.find("deploy")).get().extracting(Skill::body).isEqualTo("Run the new steps.");
        assertThat(skills.list()).extracting(Skill::description).containsExactly("Deploys the site, new way.");

        Files.delete(file);
        assertThat(skills.find("deploy")).isEmpty();
        assertThat(skills.list()).isEmpty();
    }

    @Test
    void aFolderOrSkillFileThatIsASymbolicLink_isSkipped() throws IOException {
        skill(elsewhere, "outside", md("outside", "lives elsewhere", "secret plans"));
        Files.createDirectories(root);
        Files.createSymbolicLink(root.resolve("outside"), elsewhere.resolve("outside"));
        Files.createDirectories(root.resolve("linked"));
        Path target = Files.writeString(elsewhere.resolve("SKILL.md"), md("linked", "via a link", "secret"));
        Files.createSymbolicLink(root.resolve("linked").resolve("SKILL.md"), target);
        Skills skills = new Skills(root, false);

        assertThat(skills.list()).isEmpty();
        assertThat(skills.find("outside")).isEmpty();
        assertThat(skills.find("linked")).isEmpty();
        assertThat(skills.problems()).containsEntry(root.resolve("outside").toString(),
                "it is a symbolic link; a skill must be a folder inside " + root.toAbsolutePath())
                .containsEntry(root.resolve("linked").resolve("SKILL.md").toString(), "it is a symbolic link; a SKILL.md must be a file in its folder");
    }

    @Test
    void filesBesideTheSkill_areListedAndRead_butNoPathLeavesItsFolder() throws IOException {
        skill(root, "forms", md("forms", "Fills forms.", "See reference.md."));
        Files.writeString(root.resolve("forms/reference.md"), "the reference");
        Files.createDirectories(root.resolve("forms/scripts"));
        Files.writeString(root.resolve("forms/scripts/fill.py"), "print('never run')");
        Files.writeString(root.resolve("secret.txt"), "operator secret");
        Files.writeString(elsewhere.resolve("passwd"), "root:x:0:0");
        Files.createSymbolicLink(root.resolve("forms/link.md"), elsewhere.resolve("passwd"));
        Files.createSymbolicLink(root.resolve("forms/dirlink"), elsewhere);
        Skills skills = new Skills(root, false);
        Skill forms = skills.find("forms").orElseThrow();

        assertThat(skills.files(forms)).containsExactly("reference.md", "scripts/fill.py");
        assertThat(skills.read(forms, "reference.md")).isEqualTo("the reference");
        assertThat(skills.read(forms, "scripts/../reference.md")).isEqualTo("the reference");
        for (String escape : List.of("../secret.txt", "scripts/../../secret.txt", elsewhere.resolve("passwd").toString(), "/etc/passwd", "..", "")) {
            assertThatThrownBy(() -> skills.read(forms, escape)).as(escape).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> skills.read(forms, "../secret.txt")).hasMessage("'../secret.txt' is outside the skill's folder; only its own files can be read");
        assertThatThrownBy(() -> skills.read(forms, "link.md")).hasMessageContaining("passes a symbolic link");
        assertThatThrownBy(() -> skills.read(forms, "dirlink/passwd")).hasMessageContaining("passes a symbolic link");
        assertThatThrownBy(() -> skills.read(forms, "missing.md")).hasMessage("the skill forms has no file 'missing.md'");
    }

    @Test
    void write_isRefusedWhenReadOnly_andValidatedWhenWritable() throws IOException {
        assertThatThrownBy(() -> new Skills(root, false).write("notes", md("notes", "d", "b"))).isInstanceOf(IllegalStateException.class);
        assertThat(root).doesNotExist();

        Skills writable = new Skills(root, true);
        assertThatThrownBy(() -> writable.write("../evil", md("../evil", "d", "b"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a skill name");
        assertThatThrownBy(() -> writable.write("notes", md("other", "d", "b"))).hasMessage("its name 'other' does not match its folder 'notes'");
        assertThatThrownBy(() -> writable.write("notes", "no front matter")).hasMessageStartingWith("it does not start with YAML front matter");
        assertThat(writable.list()).isEmpty();

        Skill notes = writable.write("notes", md("notes", "Keeps meeting notes.", "Write them as bullets."));

        assertThat(notes.name()).isEqualTo("notes");
        assertThat(Files.readString(root.resolve("notes/SKILL.md"))).isEqualTo(md("notes", "Keeps meeting notes.", "Write them as bullets."));
        assertThat(writable.find("notes")).get().extracting(Skill::body).isEqualTo("Write them as bullets.");
        assertThat(root.resolve("notes")).isDirectoryNotContaining(p -> p.getFileName().toString().endsWith(".tmp"));
    }
}
