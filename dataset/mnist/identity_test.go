package mnist_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tensorfeed/tensorfeed/dataset/mnist"
	"github.com/tensorfeed/tensorfeed/internal/testkit/checkpointtest"
	"github.com/tensorfeed/tensorfeed/internal/testkit/fixture"
	"github.com/tensorfeed/tensorfeed/source"
)

// writeSet writes name-images and name-labels in dir: n images of 28x28
// pixels of the value tag and labels i%10, as long for every tag.
func writeSet(t *testing.T, dir, name string, n int, tag byte) (images, labels string) {
	t.Helper()
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	img = binary.BigEndian.AppendUint32(img, uint32(n))
	img = binary.BigEndian.AppendUint32(img, 28)
	img = binary.BigEndian.AppendUint32(img, 28)
	img = append(img, strings.Repeat(string(tag), n*28*28)...)
	lab := binary.BigEndian.AppendUint32(nil, 0x801)
	lab = binary.BigEndian.AppendUint32(lab, uint32(n))
	for i := range n {
		lab = append(lab, byte(i%10))
	}
	return fixture.WriteFile(t, dir, name+"-images", img), fixture.WriteFile(t, dir, name+"-labels", lab)
}

// A Table is a source.Identifier: a checkpoint of a pass over a table of
// one pair of files does not resume over a table of other files with as
// many samples, nor over a table of the same files read with other
// classes.
func TestTableIdentity(t *testing.T) {
	dir := t.TempDir()
	aImages, aLabels := writeSet(t, dir, "a", 40, 1)
	bImages, bLabels := writeSet(t, dir, "b", 40, 2)
	load := func(images, labels string, opts ...mnist.Option) func() source.Indexed[mnist.Sample] {
		return func() source.Indexed[mnist.Sample] {
			tab, err := mnist.New(images, labels, opts...).Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return tab
		}
	}
	checkpointtest.TableIdentity(t, "table", load(aImages, aLabels), load(bImages, bLabels))
	checkpointtest.TableIdentity(t, "classes", load(aImages, aLabels), load(aImages, aLabels, mnist.Classes(11)))
	label := func(s mnist.Sample) (uint8, error) { return s.Label, nil }
	checkpointtest.TableIdentity(t, "mapped",
		func() source.Indexed[uint8] { return source.MapIndexed(load(aImages, aLabels)(), label) },
		func() source.Indexed[uint8] { return source.MapIndexed(load(bImages, bLabels)(), label) })

	id, err := load(aImages, aLabels)().(source.Identifier).Identity(context.Background())
	if err != nil || !strings.Contains(id, "a-images (") || !strings.Contains(id, "a-labels (") || strings.Contains(id, dir) {
		t.Errorf("Identity = %q, %v: want a-images and a-labels by base name", id, err)
	}
}
