package io.wheeltimer.spring.autoconfigure.durable;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/** The {@code durabletimeouts} endpoint as it comes (read-only, data hidden), on H2. */
@SpringBootTest(
        classes = DurableTimeoutsEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.datasource.url=jdbc:h2:mem:endpoint-read-only;DB_CLOSE_DELAY=-1")
@DirtiesContext
class DurableTimeoutsEndpointReadOnlyH2Test extends DurableTimeoutsEndpointReadOnlyTests {}
