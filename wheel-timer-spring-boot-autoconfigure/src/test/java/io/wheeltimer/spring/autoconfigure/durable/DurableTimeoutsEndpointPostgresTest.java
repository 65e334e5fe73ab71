package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The {@code durabletimeouts} endpoint with writes allowed and data shown, on PostgreSQL. */
class DurableTimeoutsEndpointPostgresTest extends DurableTimeoutsEndpointTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableTimeoutsEndpointHttpTests.postgres(registry);
    }
}
