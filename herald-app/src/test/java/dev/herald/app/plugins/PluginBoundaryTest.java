package dev.herald.app.plugins;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The app knows platforms only as plug-ins: its shipped classes reach a chat platform through
 * {@code dev.herald.core.platform.PlatformPlugin} and never name a class of {@code dev.herald.platforms}, so a platform
 * is added without touching herald-app. Its tests may (they read a platform's settings record).
 */
class PluginBoundaryTest {
    @Test
    void appMainClasses_dependOnNoPlatformPackage() {
        JavaClasses app = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.herald.app");

        noClasses().should().dependOnClassesThat().resideInAPackage("dev.herald.platforms..")
                .because("a chat platform is a plug-in (PlatformPlugin), found at start; the app names none of them")
                .check(app);
    }
}
