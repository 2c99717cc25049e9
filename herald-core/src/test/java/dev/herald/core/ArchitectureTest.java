package dev.herald.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The core knows no HTTP, SQL driver or platform SDK, and no platform package. */
class ArchitectureTest {
    static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.herald.core");

    @Test
    void core_doesNotUseHttpSqlOrJson() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("java.net.http..", "java.sql..", "io.javalin..", "com.fasterxml..", "org.xerial..")
                .check(CORE);
    }

    @Test
    void core_doesNotDependOnOtherHeraldModules() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("dev.herald.store..", "dev.herald.agent..", "dev.herald.web..", "dev.herald.app..",
                        "dev.herald.platforms..")
                .check(CORE);
    }
}
