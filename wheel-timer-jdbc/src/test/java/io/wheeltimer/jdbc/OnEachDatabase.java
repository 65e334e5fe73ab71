package io.wheeltimer.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A test class whose every test runs once on each {@link TestDatabase}, on a {@link DurableFixture}
 * of its own (fresh tables, a 10 ms wheel), closed after the test.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
abstract class OnEachDatabase {

    final TestDatabase database;
    DurableFixture fixture;

    OnEachDatabase(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void createFixture() {
        fixture = new DurableFixture(database);
    }

    @AfterEach
    void closeFixture() {
        fixture.close();
    }
}
