package capacity

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthsched/berth"
)

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// assertFieldError checks that err is a *berth.FieldError naming key, of
// kind berth.ErrInvalidArgument.
func assertFieldError(t *testing.T, err error, key string) {
	t.Helper()
	var fe *berth.FieldError
	require.True(t, errors.As(err, &fe), "%s: want a FieldError, got %v", key, err)
	assert.Equal(t, key, fe.Field)
	assert.ErrorIs(t, err, berth.ErrInvalidArgument)
}
