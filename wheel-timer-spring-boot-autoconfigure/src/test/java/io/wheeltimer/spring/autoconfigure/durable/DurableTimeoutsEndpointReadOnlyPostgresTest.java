package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The {@code durabletimeouts} endpoint as it comes (read-only, data hidden), on PostgreSQL. */
class DurableTimeoutsEndpointReadOnlyPostgresTest extends DurableTimeoutsEndpointReadOnlyTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableTimeoutsEndpointHttpTests.postgres(registry);
    }
}
