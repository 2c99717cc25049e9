package dev.herald.web.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The browser libraries the chat serves from the jar are exactly the npm packages pinned in
 * {@code src/test/node/package.json}: a vendored file cannot drift from (or be edited away from) its release.
 */
class VendoredAssetsTest {
    @ParameterizedTest
    @CsvSource({"vendor/marked.umd.js, marked/lib/marked.umd.js", "vendor/purify.min.js, dompurify/dist/purify.min.js"})
    void vendoredFile_isByteForByteThePinnedPackageFile(String asset, String packageFile) throws IOException {
        Path published = WebChatBrowserTest.NODE_DIR.resolve("node_modules").resolve(packageFile);
        assertThat(published).as("npm ci in %s installs the pinned package", WebChatBrowserTest.NODE_DIR).exists();
        try (InputStream in = VendoredAssetsTest.class.getResourceAsStream("/dev/herald/web/static/" + asset)) {
            assertThat(in).as("%s is in the jar", asset).isNotNull();
            assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(published));
        }
    }
}
