package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The {@code durabletimeouts} endpoint as it comes (read-only, data hidden), on PostgreSQL. */
@SpringBootTest(
        classes = DurableTimeoutsEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class DurableTimeoutsEndpointReadOnlyPostgresTest extends DurableTimeoutsEndpointReadOnlyTests {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableTimeoutsEndpointHttpTests.postgres(registry);
    }
}
