package io.wheeltimer.sample;

import java.util.concurrent.TimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error of the API as an RFC 9457 problem detail: Spring MVC's own (404 for an unknown path, 400,
 * 405, ...), a body over the limit (413), a payment that timed out (504), a database that cannot be
 * reached (503) and anything unexpected (500).
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    private static final Log log = LogFactory.getLog(ProblemHandler.class);

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(
            HttpMessageNotReadableException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        BodyLimitFilter.TooLarge tooLarge = cause(ex, BodyLimitFilter.TooLarge.class);
        if (tooLarge != null) {
            ProblemDetail problem =
                    ProblemDetail.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE, tooLarge.getMessage());
            problem.setTitle("Request body too large");
            return handleExceptionInternal(ex, problem, headers, HttpStatus.CONTENT_TOO_LARGE, request);
        }
        StrictBodyDecoding.Malformed malformed = cause(ex, StrictBodyDecoding.Malformed.class);
        if (malformed != null) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, malformed.getMessage());
            problem.setTitle("Malformed request body");
            return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.BAD_REQUEST, "The body must be a JSON object, for example {\"item\": \"book\"}.");
        problem.setTitle("Malformed request body");
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    /**
     * Anything else; a payment whose charge timed out ({@link TimeoutException}, maybe wrapped) is a 504,
     * and a database that cannot be reached is a 503 with {@code Retry-After}.
     */
    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception ex, WebRequest request) throws Exception {
        if (DatabaseUnavailable.causedBy(ex)) {
            log.warn("Database unavailable: " + ex); // no stack trace: an outage fails every request
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                    HttpStatus.SERVICE_UNAVAILABLE,
                    "The orders database cannot be reached right now. Try again in "
                            + DatabaseUnavailable.RETRY_AFTER_SECONDS + " seconds.");
            problem.setTitle("Database unavailable");
            HttpHeaders headers = new HttpHeaders();
            headers.set(HttpHeaders.RETRY_AFTER, DatabaseUnavailable.RETRY_AFTER_SECONDS);
            return handleExceptionInternal(ex, problem, headers, HttpStatus.SERVICE_UNAVAILABLE, request);
        }
        if (cause(ex, TimeoutException.class) != null) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                    HttpStatus.GATEWAY_TIMEOUT,
                    "The payment provider did not answer in time; the order is still awaiting payment. Try again.");
            problem.setTitle("Payment timed out");
            return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.GATEWAY_TIMEOUT, request);
        }
        Throwable cause = ex.getCause();
        if ((ex instanceof java.util.concurrent.CompletionException
                        || ex instanceof java.util.concurrent.ExecutionException)
                && cause instanceof Exception unwrapped) {
            return handleException(unwrapped, request); // an ErrorResponseException thrown inside a future
        }
        log.error("Unexpected error", ex);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.INTERNAL_SERVER_ERROR, "Something went wrong on our side; it has been logged.");
        problem.setTitle("Internal Server Error");
        return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.INTERNAL_SERVER_ERROR, request);
    }

    static <T extends Throwable> T cause(Throwable ex, Class<T> type) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
