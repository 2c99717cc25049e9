package dev.herald.core.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A recorded file is read at send time only while its path still leads to it without a link at any step. */
class OutboundFileTest {
    @TempDir
    Path dir;

    @Test
    void read_fileStillInPlace_returnsItsBytes() throws Exception {
        Path f = Files.createDirectories(dir.resolve("workspace/out")).resolve("a.txt");
        Files.writeString(f, "hello");
        OutboundFile file = new OutboundFile(f.toRealPath().toString(), "a.txt", "text/plain", 5, null);

        assertThat(file.present()).isTrue();
        assertThat(new String(file.read(100), StandardCharsets.UTF_8)).isEqualTo("hello");
    }

    @Test
    void read_directorySwappedForALinkOutOfTheWorkspace_isRefused() throws Exception {
        Path out = Files.createDirectories(dir.resolve("workspace/out"));
        Files.writeString(out.resolve("a.txt"), "hello");
        OutboundFile file = new OutboundFile(out.resolve("a.txt").toRealPath().toString(), "a.txt", "text/plain", 5, null);
        Path secrets = Files.createDirectories(dir.resolve("secrets"));
        Files.writeString(secrets.resolve("a.txt"), "secret");
        Files.delete(out.resolve("a.txt"));
        Files.delete(out);
        Files.createSymbolicLink(out, secrets); // the recorded path now leads out of the workspace

        assertThat(file.present()).isFalse();
        assertThatThrownBy(() -> file.read(100)).isInstanceOf(IOException.class).hasMessageContaining("a.txt");
    }

    @Test
    void read_fileReplacedByALink_isRefused() throws Exception {
        Path out = Files.createDirectories(dir.resolve("workspace"));
        Files.writeString(dir.resolve("secret.txt"), "secret");
        Path f = out.resolve("a.txt");
        Files.writeString(f, "hello");
        OutboundFile file = new OutboundFile(f.toRealPath().toString(), "a.txt", "text/plain", 5, null);
        Files.delete(f);
        Files.createSymbolicLink(f, dir.resolve("secret.txt"));

        assertThat(file.present()).isFalse();
        assertThatThrownBy(() -> file.read(100)).isInstanceOf(IOException.class);
    }
}
