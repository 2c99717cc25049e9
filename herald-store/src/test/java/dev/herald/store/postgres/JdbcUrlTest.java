package dev.herald.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcUrlTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "jdbc:postgresql://localhost:5432/herald                          | postgresql localhost:5432/herald",
        "jdbc:postgresql://db.example.com/herald?sslmode=require&password=x | postgresql db.example.com/herald",
        "jdbc:postgresql://h1:5432,h2:5433/herald?targetServerType=primary | postgresql h1:5432,h2:5433/herald",
        "jdbc:postgresql://someone:secret@db:5432/herald                  | postgresql db:5432/herald",
        "jdbc:postgresql://db:5432                                        | postgresql db:5432/(default database)",
        "JDBC:POSTGRESQL://DB:5432/herald                                 | postgresql db:5432/herald"})
    void describe_namesHostsAndDatabaseOnly(String url, String described) {
        assertThat(JdbcUrl.valid(url)).isTrue();
        assertThat(JdbcUrl.describe(url)).isEqualTo(described);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "postgres://db/herald", "jdbc:postgresql:herald", "jdbc:mysql://db/herald", "jdbc:postgresql:///herald",
        "jdbc:postgresql://db host/herald"})
    void invalid_isRejectedAndDescribedWithoutTheText(String url) {
        assertThat(JdbcUrl.valid(url)).isFalse();
        assertThat(JdbcUrl.describe(url)).isEqualTo("postgresql (invalid URL)");
    }

    @org.junit.jupiter.api.Test
    void carriesPassword_findsThePasswordPropertyOnly() {
        assertThat(JdbcUrl.carriesPassword("jdbc:postgresql://db/herald?user=h&Password=x")).isTrue();
        assertThat(JdbcUrl.carriesPassword("jdbc:postgresql://db/herald?password=x")).isTrue();
        assertThat(JdbcUrl.carriesPassword("jdbc:postgresql://db/herald?sslpassword=x&user=h")).isFalse();
        assertThat(JdbcUrl.carriesPassword("jdbc:postgresql://db/herald")).isFalse();
    }
}
